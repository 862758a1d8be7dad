//===- TfmToLinalg.h - Lowering tfm ops to linalg on tensors ----*- C++ -*-===//
#ifndef TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
#define TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {

/// Elementwise ops: tfm.add, tfm.mul, tfm.gelu, tfm.silu.
void populateTfmElementwiseToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.rms_norm, tfm.layer_norm.
void populateTfmNormsToLinalgPatterns(RewritePatternSet &patterns);
/// How projections read their inputs (see docs/weight-types.md).
struct ProjectionLoweringOptions {
  /// Q4_0 projections quantize their inputs to int8 per block and sum
  /// integer products.
  bool int8Inputs = false;
  /// Projections over bf16 panels round their inputs to bf16 and sum the
  /// products of pairs of input features.
  bool bf16Inputs = false;
};

/// tfm.linear, tfm.lm_head, tfm.packed_linear, tfm.quantized_linear.
void populateTfmProjectionsToLinalgPatterns(
    RewritePatternSet &patterns, const ProjectionLoweringOptions &options = {});
/// tfm.embedding, tfm.position_embedding, tfm.sinusoidal_position, tfm.rope.
void populateTfmPositionalToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.attention -> tfm.attention_kernel (destination-style, tileable).
void populateTfmAttentionToLinalgPatterns(RewritePatternSet &patterns);
/// tfm.moe: router product, per-token top-k choice, the chosen experts.
void populateTfmMoEToLinalgPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateTfmToLinalgPatterns(RewritePatternSet &patterns,
                                 const ProjectionLoweringOptions &options = {});

} // namespace mlir::tfm

#endif // TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
