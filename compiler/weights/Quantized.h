//===- Quantized.h - GGUF block-quantized tensors ---------------*- C++ -*-===//
//
// Reading GGUF's block-quantized types as the format defines them (ggml's
// dequantize_row_q8_0 / _q4_0 / _q4_K / _q5_K / _q6_K): every value is an
// integer times its block's scale (minus a block minimum for Q4_K and
// Q5_K), computed in f32 in ggml's order of operations. So dequantized
// weights are the quantized ones, bit for bit what llama.cpp's reference
// dequantizer gives, not an approximation of them.
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

/// The f16 scale of block `block` of Q8_0 / Q4_0 `data` as a float.
float blockScale(ElementType type, const char *data, uint64_t block);

/// Whether every f16 scale stored in block `block` of `data` is finite
/// (the integers always are, so then all its values are).
bool blockScalesFinite(ElementType type, const char *data, uint64_t block);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_QUANTIZED_H
