//===- NibblePairDot.h - Nibble pair products as vpmaddubsw -----*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_NIBBLEPAIRDOT_H
#define TFMC_PASSES_CODEGEN_CPU_NIBBLEPAIRDOT_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {

/// Rewrites vectors of `(byte & 15) * lo + (byte >> 4) * hi` in 16-bit
/// lanes (int8 `lo`, `hi`) into AVX2's `vpmaddubsw`, in the kernels whose
/// configuration (#tfm_cpu.projection) asks for it.
void populateNibblePairDotPatterns(RewritePatternSet &patterns);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_CPU_NIBBLEPAIRDOT_H
