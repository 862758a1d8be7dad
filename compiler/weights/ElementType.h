//===- ElementType.h - Element types a weight can be stored in --*- C++ -*-===//
//
// The element types of tensors in model files and in the weights blob. Today
// f32, f16 and bf16; GGUF's block-quantized types (Q8_0, Q4_0, Q4_K, ...)
// store elements in blocks of `blockElements` values taking `blockBytes`
// bytes, which is why sizes go through storageBytes() rather than a plain
// element size.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_H
#define TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tfmc::weights {

enum class ElementType : uint8_t {
  F32,  ///< IEEE binary32
  F16,  ///< IEEE binary16
  BF16, ///< bfloat16: the top half of a binary32
  /// GGUF Q8_0: blocks of 32 values, an f16 scale d then 32 int8 q; the
  /// value is q * d (34 bytes per block).
  Q8_0,
  /// GGUF Q4_0: blocks of 32 values, an f16 scale d then 16 bytes whose low
  /// nibbles are values 0..15 and high nibbles values 16..31; the value is
  /// (nibble - 8) * d (18 bytes per block).
  Q4_0,
  /// GGUF's k-quants: super-blocks of 256 values with quantized sub-block
  /// scales (see KQuants.h). Read and dequantized exactly; never a
  /// conversion target.
  Q4_K,
  Q5_K,
  Q6_K,
};

/// "f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q5_k", "q6_k".
llvm::StringRef elementTypeName(ElementType type);

/// Whether values are stored in blocks that share a scale (Q8_0, Q4_0 and
/// the k-quants).
bool isBlockQuantized(ElementType type);

/// Values per storage block (1 for scalar types).
uint32_t blockElements(ElementType type);

/// Bytes per storage block (the element size for scalar types).
uint32_t blockBytes(ElementType type);

/// Bytes that `count` elements occupy, saturating at UINT64_MAX so that
/// absurd counts from corrupt headers fail size checks instead of wrapping.
/// `count` must be a whole number of blocks.
uint64_t storageBytes(ElementType type, uint64_t count);

/// IEEE half -> float, exact for normals, subnormals, infinities and NaNs
/// (NaN payloads are kept).
float halfToFloat(uint16_t bits);

/// bfloat16 -> float (exact: the bits become the top half of an f32).
float bfloat16ToFloat(uint16_t bits);

/// float -> IEEE half, rounded to nearest even (as numpy's and PyTorch's
/// casts): overflow gives infinity, tiny values subnormals or zero, NaN a
/// quiet NaN of the same sign.
uint16_t floatToHalf(float value);

/// float -> bfloat16, rounded to nearest even (as PyTorch's cast); NaN
/// stays a quiet NaN of the same sign.
uint16_t floatToBfloat16(float value);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_H
