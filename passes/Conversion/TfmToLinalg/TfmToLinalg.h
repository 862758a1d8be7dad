//===- TfmToLinalg.h - Lowering tfm ops to linalg on tensors ----*- C++ -*-===//
#ifndef TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
#define TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H

#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/CommandLine.h"

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
/// tfm.moe_experts (the chosen experts) as loops over tokens and choices
/// (on the host), each choice's products over a slice of the stacked
/// weights.
void populateTfmMoEToLinalgPatterns(RewritePatternSet &patterns);
/// The same two ops as structured ops over tokens and choices that gather
/// the chosen experts' rows in their bodies: no step outside an op.
void populateTfmMoEToGathersPatterns(RewritePatternSet &patterns);

/// How a mixture of experts becomes linalg (`convert-tfm-to-linalg`'s
/// `moe` option).
enum class MoEForm {
  /// Loops over tokens and choices around products of weight slices: the
  /// CPU's, whose loops run on the host.
  loops,
  /// Every step an op that gathers the chosen rows: a GPU's, which runs
  /// each op as a kernel.
  gathers,
};

/// The option's values.
inline llvm::cl::ValuesClass moeFormValues() {
  return llvm::cl::values(
      clEnumValN(MoEForm::loops, "loops",
                 "loops over tokens and choices around products of the "
                 "chosen experts' slices"),
      clEnumValN(MoEForm::gathers, "gathers",
                 "one structured op per step, gathering the chosen experts' "
                 "rows in its body"));
}

/// All of the above, mixtures of experts in `moeForm`.
void populateTfmToLinalgPatterns(RewritePatternSet &patterns,
                                 MoEForm moeForm = MoEForm::loops);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
