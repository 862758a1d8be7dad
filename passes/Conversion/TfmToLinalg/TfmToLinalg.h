//===- TfmToLinalg.h - Lowering tfm ops to linalg on tensors ----*- C++ -*-===//
#ifndef TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
#define TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {

/// Elementwise ops: tfm.add, tfm.mul, tfm.gelu, tfm.silu, tfm.relu,
/// tfm.soft_cap.
void populateTfmElementwiseToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.rms_norm, tfm.layer_norm.
void populateTfmNormsToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.linear, tfm.lm_head.
void populateTfmProjectionsToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.embedding, tfm.position_embedding, tfm.sinusoidal_position, tfm.rope.
void populateTfmPositionalToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.attention -> tfm.attention_kernel (destination-style, tileable).
void populateTfmAttentionToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.moe_route (router product, per-token top-k choice) and
/// tfm.moe_experts (the chosen experts).
void populateTfmMoEToLinalgPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateTfmToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
