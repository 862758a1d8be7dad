//===- Quantized.h - GGUF block-quantized tensors -----------------*- C++ -*-===//
//
// Reading GGUF's block-quantized types as the format defines them (ggml's
// dequantize_row_q8_0 / dequantize_row_q4_0): every value is an integer
// times its block's f16 scale, computed in f32. The products are exact in
// f32 (at most 8 + 11 significant bits), so dequantized weights are the
// quantized ones, not an approximation of them.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_QUANTIZED_H
#define TFMC_COMPILER_WEIGHTS_QUANTIZED_H

#include "compiler/weights/ElementType.h"

namespace tfmc::weights {

/// Writes the `blocks` blocks of block-quantized `type` at `data` as
/// `blocks * blockElements(type)` floats to `out`.
void dequantizeBlocks(ElementType type, const char *data, uint64_t blocks,
                      float *out);

/// The scale of block `block` of `data` as a float.
float blockScale(ElementType type, const char *data, uint64_t block);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_QUANTIZED_H
