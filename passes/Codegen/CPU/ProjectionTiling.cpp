//===- ProjectionTiling.cpp - The tiles of projection micro-kernels -------===//
#include "passes/Codegen/CPU/ProjectionTiling.h"

#include "passes/Codegen/CPU/IR/KernelConfig.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::tfm::cpu;

/// The largest divisor of `extent` that is at most `limit` (at least 1).
static int64_t largestDivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t candidate = std::min(extent, limit); candidate > 1; --candidate)
    if (extent % candidate == 0)
      return candidate;
  return 1;
}

TileSizes mlir::tfm::cpu::chooseTileSizes(int64_t numPanels, int64_t numRows,
                                          int64_t accumulators,
                                          int64_t parallelTiles) {
  TileSizes sizes;
  sizes.rows = largestDivisorAtMost(numRows, accumulators);
  int64_t panelLimit = std::max<int64_t>(1, accumulators / sizes.rows);
  panelLimit =
      std::min(panelLimit, std::max<int64_t>(1, numPanels / parallelTiles));
  sizes.panels = largestDivisorAtMost(numPanels, panelLimit);
  return sizes;
}

FailureOr<linalg::GenericOp>
mlir::tfm::cpu::tile(RewriterBase &rewriter, linalg::GenericOp op,
                     ArrayRef<int64_t> sizes,
                     scf::SCFTilingOptions::LoopType loopType) {
  scf::SCFTilingOptions options;
  options.setLoopType(loopType);
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  setLoopsConfig(tiled->loops, getKernelConfig(op));
  rewriter.replaceOp(op, tiled->replacements);
  return cast<linalg::GenericOp>(tiled->tiledOps.back());
}

LogicalResult mlir::tfm::cpu::buildRegisterTile(RewriterBase &rewriter,
                                                linalg::GenericOp task,
                                                int64_t rows) {
  SmallVector<int64_t> sizes = {0, rows, 1, 0};
  FailureOr<linalg::GenericOp> kernel =
      tile(rewriter, task, sizes, scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(kernel))
    return task.emitOpError("could not be tiled into register tiles");
  rewriter.setInsertionPoint(*kernel);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, *kernel);
  if (failed(vectorized))
    return task.emitOpError("register tile could not be vectorised");
  rewriter.replaceOp(*kernel, vectorized->replacements);
  return success();
}

LogicalResult mlir::tfm::cpu::vectorizeInPlace(RewriterBase &rewriter,
                                               linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (failed(vectorized))
    return failure();
  rewriter.replaceOp(op, vectorized->replacements);
  return success();
}

void mlir::tfm::cpu::setLoopsConfig(ArrayRef<LoopLikeOpInterface> loops,
                                    Attribute config) {
  if (!config)
    return;
  for (LoopLikeOpInterface loop : loops)
    setKernelConfig(loop, config);
}
