//===- Dequantize.h - Weights read from their stored bytes ------*- C++ -*-===//
//
// A weight matrix `[rows, features]` as tfmc stores it: f32 values, f16 or
// bf16 bit patterns, or GGUF's block bytes row by row (Q8_0, Q4_0, Q4_K,
// Q5_K, Q6_K). The kernels dequantize each value where they read it, in
// ggml's order of f32 operations (compiler/weights/Quantized.h, KQuants.h),
// under strict_float so that no fused multiply-add or reassociation moves
// a value: a weight reads exactly as llama.cpp's dequantizer gives it.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_HALIDE_GEN_DEQUANTIZE_H
#define TFMC_COMPILER_BACKENDS_HALIDE_GEN_DEQUANTIZE_H

#include "compiler/backends/halide/KernelDescription.h"

#include "Halide.h"

namespace tfmc::halide {

/// How a `[rows, features]` matrix of `type` is passed: its element type
/// (f32, uint16 bits, or uint8 block bytes) and the extent of its inner
/// dimension (features, or the bytes of one row).
Halide::Type weightStorageType(WeightType type);
int64_t weightStorageColumns(WeightType type, int64_t features);

/// The value of element `k` of row `row` of `weight`, stored as `type`.
/// `nativeHalf`: decode f16 with the target's conversion.
Halide::Expr dequantize(WeightType type, const Halide::ImageParam &weight,
                        Halide::Expr k, Halide::Expr row, bool nativeHalf);

} // namespace tfmc::halide

#endif // TFMC_COMPILER_BACKENDS_HALIDE_GEN_DEQUANTIZE_H
