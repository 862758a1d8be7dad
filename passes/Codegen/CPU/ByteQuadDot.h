//===- ByteQuadDot.h - Byte quad products as vpdpbusd -----------*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_BYTEQUADDOT_H
#define TFMC_PASSES_CODEGEN_CPU_BYTEQUADDOT_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {

/// Rewrites `acc + sum_t u_t * s_t` over the four bytes t of 32-bit lanes
/// (`u_t` unsigned, `s_t` signed) into VNNI's `vpdpbusd`, in the kernels
/// whose configuration (#tfm_cpu.projection) asks for it: 16 32-bit lanes
/// an instruction for `vpdpbusd16` (AVX-512 VNNI), 8 for `vpdpbusd8`
/// (AVX-VNNI).
void populateByteQuadDotPatterns(RewritePatternSet &patterns);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_CPU_BYTEQUADDOT_H
