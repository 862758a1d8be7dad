//===- PanelProjections.h - CPU panel projections to linalg ----*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_PANELPROJECTIONS_PANELPROJECTIONS_H
#define TFMC_PASSES_CODEGEN_CPU_PANELPROJECTIONS_PANELPROJECTIONS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm::cpu {

/// tfm_cpu.packed_linear and tfm_cpu.quantized_linear to the linalg forms
/// of their kernels, as their kernel configurations say (panel format,
/// input scheme): contractions over the panels that
/// tfm-cpu-tile-projections turns into micro-kernels.
void populateTfmCpuPanelProjectionPatterns(RewritePatternSet &patterns);

/// tfm_cpu.panel_embedding to a linalg gather of each token's row from the
/// panels (PanelEmbedding.cpp).
void populateTfmCpuPanelEmbeddingPatterns(RewritePatternSet &patterns);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_PANELPROJECTIONS_PANELPROJECTIONS_H
