//===- ElementType.h - Element types a weight can be stored in --*- C++ -*-===//
//
// The element types of tensors in model files and in the weights blob
// (listed once, in ElementType.td): f32, f16 and bf16; GGUF's
// block-quantized types (Q8_0, Q4_0, Q4_K, ...) store elements in blocks of
// `blockElements` values taking `blockBytes` bytes, which is why sizes go
// through storageBytes() rather than a plain element size.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_H
#define TFMC_COMPILER_WEIGHTS_ELEMENTTYPE_H

// The generated enum and its FieldParser need these (header-only: no MLIR
// library is linked).
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

/// `enum class ElementType` (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K),
/// `stringifyElementType` / `symbolizeElementType`, generated from
/// ElementType.td, the one list of element types.
#include "compiler/weights/ElementType.h.inc"

namespace tfmc::weights {

/// "f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q5_k", "q6_k".
inline llvm::StringRef elementTypeName(ElementType type) {
  return stringifyElementType(type);
}

/// Whether weights of any type can be converted to `type` (`--weights`):
/// the scalar types and Q8_0 / Q4_0, which the compiler quantizes to. The
/// k-quants are read as stored, never produced.
bool isConversionTarget(ElementType type);

/// The conversion targets, in enum order: "f32, f16, bf16, q8_0 or q4_0".
std::string conversionTargetNames();

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
