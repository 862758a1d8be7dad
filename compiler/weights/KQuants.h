//===- KQuants.h - GGUF's k-quant super-blocks (Q4_K, Q5_K, Q6_K) ---------===//
//
// The k-quants store 256 values per super-block with per-sub-block scales
// that are themselves quantized (6 or 8 bits) against f16 super-block
// scales. Q4_K_M and Q5_K_M files, the ones most often downloaded, mix
// Q4_K or Q5_K with Q6_K (and Q8_0 / F32 for tensors whose rows are not
// whole super-blocks).
//
// Dequantization follows ggml's dequantize_row_q4_K / _q5_K / _q6_K
// operation for operation, in f32, so a tensor reads as exactly the values
// llama.cpp's reference dequantizer produces:
//
//   Q4_K (144 bytes): f16 d, f16 dmin, 12 bytes of packed 6-bit scales and
//        mins for 8 sub-blocks of 32, 128 bytes of nibbles. Value of
//        element l of sub-block j: (d * sc[j]) * q - (dmin * m[j]).
//   Q5_K (176 bytes): as Q4_K, then 32 bytes of fifth bits before the
//        nibbles: q = nibble + 16 * bit.
//   Q6_K (210 bytes): 128 bytes of low nibbles, 64 bytes of high 2-bit
//        pairs, 16 int8 sub-block scales (sub-blocks of 16), f16 d last.
//        Value: (d * sc[j]) * (q - 32).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_KQUANTS_H
#define TFMC_COMPILER_WEIGHTS_KQUANTS_H

#include <cstdint>

namespace tfmc::weights {

/// Values per k-quant super-block (ggml's QK_K).
constexpr uint32_t kSuperBlockElements = 256;

/// Bytes per super-block.
constexpr uint32_t kQ4KBlockBytes = 2 + 2 + 12 + 128;
constexpr uint32_t kQ5KBlockBytes = 2 + 2 + 12 + 32 + 128;
constexpr uint32_t kQ6KBlockBytes = 128 + 64 + 16 + 2;

/// One super-block as an integer per value and a scale and a minimum per
/// sub-block (32 values for Q4_K and Q5_K, 16 for Q6_K), each computed in
/// f32 as ggml's dequantizer does: value `e` is exactly
/// `scale[e / subBlock] * quant[e] - min[e / subBlock]` (Q4_K / Q5_K:
/// `d * sc`, the quant 0..15 / 0..31, `dmin * m`; Q6_K: `d * sc`, the quant
/// minus 32, min 0, and `x - 0` is `x` for every float). The integers the
/// f32 scales and minimums are made of are kept too: `scale[j]` is exactly
/// `d * subScale[j]` and `min[j]` exactly `dmin * subMin[j]` (the f16
/// super-block scales widened, times integers of at most 8 bits: products
/// exact in f32).
struct KQuantSuperBlock {
  int64_t subBlock = 0;
  int8_t quant[kSuperBlockElements];
  float scale[16];
  float min[16];
  int8_t subScale[16]; ///< Q4_K / Q5_K: 0..63; Q6_K: -128..127
  int8_t subMin[16];   ///< Q4_K / Q5_K: 0..63; Q6_K: 0
  float d = 0, dmin = 0;
};

/// Unpacks the Q4_K, Q5_K or Q6_K super-block at `block` (kQ4KBlockBytes,
/// kQ5KBlockBytes or kQ6KBlockBytes bytes).
void unpackQ4K(const char *block, KQuantSuperBlock &out);
void unpackQ5K(const char *block, KQuantSuperBlock &out);
void unpackQ6K(const char *block, KQuantSuperBlock &out);

/// Each writes `blocks` super-blocks at `data` as `blocks * 256` floats.
void dequantizeQ4K(const char *data, uint64_t blocks, float *out);
void dequantizeQ5K(const char *data, uint64_t blocks, float *out);
void dequantizeQ6K(const char *data, uint64_t blocks, float *out);

/// Whether the f16 super-block scales of one Q4_K / Q5_K block (d and dmin)
/// or one Q6_K block (d) are finite: the integers always are.
bool q4KOrQ5KScalesFinite(const char *block);
bool q6KScaleFinite(const char *block);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_KQUANTS_H
