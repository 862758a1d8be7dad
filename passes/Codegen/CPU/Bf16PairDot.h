//===- Bf16PairDot.h - Products of bf16 pairs as vdpbf16ps ------*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_BF16PAIRDOT_H
#define TFMC_PASSES_CODEGEN_CPU_BF16PAIRDOT_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {

/// Rewrites `acc + (ext(w1) * hi(x) + ext(w0) * lo(x))` over 32-bit lanes
/// `x` holding pairs of bf16 into AVX512_BF16's `vdpbf16ps`, in the kernels
/// whose configuration (#tfm_cpu.projection) asks for it (see
/// tfm-cpu-bf16-pair-dot).
void populateBf16PairDotPatterns(RewritePatternSet &patterns);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_CPU_BF16PAIRDOT_H
