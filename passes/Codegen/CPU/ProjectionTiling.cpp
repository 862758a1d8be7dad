//===- ProjectionTiling.cpp - The tiles of projection micro-kernels -------===//
#include "passes/Codegen/CPU/ProjectionTiling.h"

#include "compiler/weights/PanelLayout.h"
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/ProjectionMatchers.h"

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

TileSizes mlir::tfm::cpu::chooseProjectionTileSizes(
    linalg::GenericOp projection, int64_t numPanels, TileBudget budget) {
  int64_t numRows = projection.getStaticLoopRanges()[kRow];
  int64_t accumulators = budget.accumulators;
  // A block-quantized projection's partial accumulators take the registers
  // of a float projection's accumulators (its output accumulators are
  // touched once per block, so the compiler may keep them in memory without
  // slowing the quant loop): the same budget, but for a k-quant GEMV's.
  if (numRows == 1 && budget.kquantGemvPanels > 0 &&
      blockPartialsOfScaledSum(projection) &&
      tfmc::weights::isKQuantFormat(
          getProjectionConfig(projection).getPanels()))
    accumulators = std::min(accumulators, budget.kquantGemvPanels);
  return chooseTileSizes(numPanels, numRows, accumulators,
                         budget.parallelTiles);
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

FailureOr<BlockTile> mlir::tfm::cpu::tileWithPartials(
    RewriterBase &rewriter, linalg::GenericOp scaledSum,
    ArrayRef<int64_t> sizes, scf::SCFTilingOptions::LoopType loopType) {
  linalg::GenericOp partials = blockPartialsOfScaledSum(scaledSum);
  Value partialsInit = partials.getDpsInitOperand(0)->get();
  auto partialsFill = partialsInit.getDefiningOp<linalg::FillOp>();
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(loopType);
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *op = producer.getOwner();
        if (op == partials.getOperation() || op == partialsFill.getOperation())
          return scf::SCFTileAndFuseOptions::ControlFnResult{false};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(scaledSum);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(scaledSum.getOperation()), options);
  if (failed(fused))
    return failure();
  rewriter.replaceAllUsesWith(
      scaledSum->getResult(0),
      fused->replacements.lookup(scaledSum->getResult(0)));
  setLoopsConfig(fused->loops, getKernelConfig(scaledSum));
  BlockTile tile;
  for (Operation *op : fused->tiledAndFusedOps) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      continue;
    if (isBlockPartialProduct(generic))
      tile.partials = generic;
    else if (generic->getParentOp() != scaledSum->getParentOp())
      tile.scaledSum = generic;
  }
  if (!tile.partials || !tile.scaledSum)
    return failure();
  // The untiled partials and their fill are dead now (the slices that
  // fusion replaced still read them until the cleanup after tiling erases
  // both).
  rewriter.eraseOp(scaledSum);
  return tile;
}

LogicalResult mlir::tfm::cpu::buildBlockRegisterTile(
    RewriterBase &rewriter, linalg::GenericOp taskScaledSum, int64_t rows) {
  unsigned loops = taskScaledSum.getNumLoops();
  SmallVector<int64_t> kernelSizes(loops, 0);
  kernelSizes[kRow] = rows;
  kernelSizes[2] = 1; // one block
  if (loops == 5)
    kernelSizes[3] = 1; // one half block: its sum scaled without a reduction
  // Tiling replaces (and erases) `taskScaledSum`: errors point at its
  // location.
  auto fail = [loc = taskScaledSum.getLoc()](const Twine &message) {
    return emitError(loc) << "block-quantized projection " << message;
  };
  FailureOr<BlockTile> kernel =
      tileWithPartials(rewriter, taskScaledSum, kernelSizes,
                       scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(kernel))
    return fail("could not be tiled into register tiles");
  // The zero fill of the partial accumulators, once per block.
  auto zeroPartials = kernel->partials.getDpsInitOperand(0)
                          ->get()
                          .getDefiningOp<linalg::FillOp>();
  SmallVector<int64_t> stepSizes(kernel->partials.getNumLoops(), 0);
  stepSizes[stepSizes.size() - 2] = 1; // one quant
  FailureOr<linalg::GenericOp> quantStep =
      tile(rewriter, kernel->partials, stepSizes,
           scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(quantStep))
    return fail("could not be tiled into quant steps");
  if (failed(vectorizeInPlace(rewriter, *quantStep)) ||
      failed(vectorizeInPlace(rewriter, kernel->scaledSum)) ||
      (zeroPartials && failed(vectorizeInPlace(rewriter, zeroPartials))))
    return fail("register tile could not be vectorised");
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
