//===- ProjectionEpilogues.h - Epilogues in projection kernels --*- C++ -*-===//
//
// An elementwise op that alone reads a projection's columns (a bias, GELU,
// a residual add, or SwiGLU's `silu(gate) * up` over the two halves of a
// stacked gate/up GEMM, which is split into its halves) is rewritten over
// the panel layout and, tiled over output panels, pulls the projections
// into each task: the epilogue runs on each task's panels while they are in
// cache, on every thread. The projections may be float panel projections
// or block-quantized ones (Q8_0, Q4_0, the k-quants: a scaled sum over
// blocks of partial products, split and fused together).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_PROJECTIONEPILOGUES_H
#define TFMC_PASSES_CODEGEN_CPU_PROJECTIONEPILOGUES_H

#include "passes/Codegen/CPU/ProjectionTiling.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

namespace mlir::tfm::cpu {

/// A projection whose output columns only one elementwise op reads: a
/// bias, an activation, a residual add (whose other inputs are read per
/// column, per row or per element), or, for a *gated* projection, an op
/// that combines the two halves of its columns, as SwiGLU's
/// `silu(gate) * up` after tfm-fuse-ffn.
struct ProjectionEpilogue {
  /// A panel projection, or the scaled sum of a block-quantized one.
  linalg::GenericOp projection;
  /// The projection's `[rows][columns]` view that the epilogue reads.
  tensor::CollapseShapeOp columns;
  linalg::GenericOp epilogue;
  /// 1, or 2 for a gated projection.
  int64_t parts = 1;
  /// For each epilogue input, the part of the columns it reads, or -1 when
  /// it is another operand.
  SmallVector<int64_t> inputPart;
  /// The micro-kernel's tile of one part: rows per register tile, panels
  /// per task.
  TileSizes sizes;
};

std::optional<ProjectionEpilogue>
matchProjectionEpilogue(linalg::GenericOp projection, TileBudget budget);

/// Rewrites the epilogue over the projection's panel layout `[rows][panels /
/// parts][lanes]`, splitting a gated projection into one projection per
/// half (a block-quantized one with its partial products), so that each
/// output panel of the epilogue reads the same panel of each part. Other
/// operands are reshaped to match (per element: the same layout; per column:
/// `[panels][lanes]`). Returns the new epilogue.
linalg::GenericOp rewriteEpilogueOverPanels(RewriterBase &rewriter,
                                            ProjectionEpilogue match);

/// Tiles the epilogue over output panels and fuses its projections (one, or
/// a gated projection's two halves, each with its partial products when it
/// is block-quantized) into each task: a task computes its panels of the
/// projections with the micro-kernel, then the epilogue on them while they
/// are in cache, so the epilogue runs on every thread and no separate pass
/// reads the projection's output again.
LogicalResult buildEpilogueKernel(RewriterBase &rewriter,
                                  linalg::GenericOp epilogue, TileSizes sizes);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_PROJECTIONEPILOGUES_H
