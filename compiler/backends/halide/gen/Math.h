//===- Math.h - Scalar math shared by the kernel kinds ----------*- C++ -*-===//
//
// Activations, normalisations and the 16-bit float formats as Halide
// expressions, written once so that a projection's fused epilogue and the
// elementwise kernel compute the same function.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_HALIDE_GEN_MATH_H
#define TFMC_COMPILER_BACKENDS_HALIDE_GEN_MATH_H

#include "compiler/backends/halide/KernelDescription.h"

#include "Halide.h"

namespace tfmc::halide {

/// IEEE half bits (uint16) -> f32, exact. `native` uses Halide's float16
/// cast (PTX's cvt on CUDA); otherwise integer operations and one multiply
/// (x86, where Halide 14 emulates the cast, and OpenCL devices without
/// cl_khr_fp16, such as pocl).
Halide::Expr halfToFloat(Halide::Expr bits, bool native);

/// bfloat16 bits (uint16) -> f32: the bits become the top half.
Halide::Expr bfloat16ToFloat(Halide::Expr bits);

/// erfc(x) in f32 with a relative error below 1.2e-7 (Numerical Recipes'
/// Chebyshev fit; Halide 14 has no erf), so that GELU's tail,
/// `0.5 * x * erfc(-x / sqrt(2))`, keeps its relative accuracy.
Halide::Expr erfcApprox(Halide::Expr x);

/// `activation(x)` (none: x).
Halide::Expr activate(Activation activation, Halide::Expr x);

/// `cap * tanh(x / cap)`: soft-capping (Gemma 2's scores and logits), with
/// the accurate tanh (a cancellation-prone exp form would lose the small
/// scores' relative precision).
Halide::Expr softCap(Halide::Expr x, float cap);

/// Masked scores take this instead of -inf: Halide compiles float math
/// without infinities (no-infs fast-math), and exp(kMaskedScore - m) is 0.
constexpr float kMaskedScore = -1.0e30f;

/// A normalisation over dimension 0 of `input`, as Funcs: `normalized(k, m)`
/// is `input(k, m)` normalised over the `features` of row m, then scaled
/// by `weight(k)` (RMSNorm: `1 + weight(k)` with unit_offset) and shifted
/// by `bias(k)` (LayerNorm with bias). `stats` holds the per-row factors
/// for the schedules (compute it per row, before the rows it serves).
struct NormFuncs {
  Halide::Func normalized{"normalized"};
  /// (mean, 1 / sqrt(variance + eps)) per row; mean is 0 for RMSNorm.
  Halide::Func stats{"norm_stats"};
  Halide::Func sum{"norm_sum"}, sumSquares{"norm_sum_squares"};
  Halide::RDom r;
};

NormFuncs defineNorm(const NormDescription &norm, Halide::Func input,
                     int64_t features, Halide::Func weight, Halide::Func bias);

} // namespace tfmc::halide

#endif // TFMC_COMPILER_BACKENDS_HALIDE_GEN_MATH_H
