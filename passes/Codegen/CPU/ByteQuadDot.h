//===- ByteQuadDot.h - Byte quad products as vpdpbusd -----------*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_BYTEQUADDOT_H
#define TFMC_PASSES_CODEGEN_CPU_BYTEQUADDOT_H

#include "dialect/TfmOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {

/// The 32-bit lanes of one VNNI byte dot product (`vpdpbusd`) on `target`:
/// 16 with AVX-512 VNNI, 8 with AVX-VNNI, 0 without VNNI. The one place
/// that decides which targets take the int8-input kernels over byte
/// quads (tfm-cpu-pack-weights' q4_0x4, tfmc compile's defaults).
int64_t byteQuadDotLanes(TargetAttr target);

/// Rewrites `acc + sum_t u_t * s_t` over the four bytes t of 32-bit lanes
/// (`u_t` unsigned, `s_t` signed) into VNNI's `vpdpbusd`, `lanes` (16 for
/// AVX-512 VNNI, 8 for AVX-VNNI) 32-bit lanes an instruction.
void populateByteQuadDotPatterns(RewritePatternSet &patterns, int64_t lanes);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_CPU_BYTEQUADDOT_H
