//===- TileProjections.cpp - Register-blocked projection micro-kernels ----===//
//
// The panel projections written by the tfm.packed_linear lowering,
// `out[s, p, j] += x[s, k] * w[p, k, j]` over loops (p, s, k, j), become:
//
//   scf.forall over groups of output panels      (shared between threads)
//     scf.for over groups of rows                (prefill tokens)
//       accumulators = out tile                  (in registers)
//       scf.for k                                (input features)
//         accumulators += broadcast(x[s, k]) * w[p, k, 0:W]
//       out tile = accumulators
//
// through upstream tiling (TilingInterface), linalg vectorisation and
// loop-invariant subset hoisting. The k-loop body is one vector load of
// weights per panel and one FMA per accumulator, with the input element
// broadcast from memory: the register-blocked GEMM (prefill) and GEMV
// (decode) micro-kernels of a BLAS, generated.
//
// A gated projection (SwiGLU's stacked gate/up GEMM and its elementwise
// `silu(gate) * up`) is split into its two halves, and the elementwise op,
// tiled over output panels, pulls both into each task: the epilogue runs
// on each task's panels while they are in cache, on every thread.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMTILEPROJECTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Loop order of the panel projection: (panel, row, input feature, lane).
enum PanelLoop { kPanel = 0, kRow = 1, kFeature = 2, kLane = 3 };

/// Whether `op` is a static panel projection `out[s, p, j] += x[s, k] *
/// w[p, k, j]` over loops (p, s, k, j).
bool isPanelProjection(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 4 || !op.hasPureTensorSemantics() ||
      !linalg::isaContractionOpInterface(op))
    return false;
  MLIRContext *context = op.getContext();
  auto dims = [&](ArrayRef<unsigned> positions) {
    return AffineMap::getMultiDimIdentityMap(4, context)
        .getSubMap(SmallVector<unsigned>(positions));
  };
  SmallVector<AffineMap> expected = {dims({kRow, kFeature}),
                                     dims({kPanel, kFeature, kLane}),
                                     dims({kRow, kPanel, kLane})};
  if (op.getIndexingMapsArray() != expected)
    return false;
  return llvm::all_of(op.getStaticLoopRanges(), [](int64_t extent) {
    return !ShapedType::isDynamic(extent);
  });
}

/// The largest divisor of `extent` that is at most `limit` (at least 1).
int64_t largestDivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t candidate = std::min(extent, limit); candidate > 1; --candidate)
    if (extent % candidate == 0)
      return candidate;
  return 1;
}

struct TileSizes {
  int64_t panels; ///< output panels per micro-kernel (and per thread task)
  int64_t rows;   ///< input rows per micro-kernel
};

/// Fills up to `accumulators` vectors of W lanes: rows first (each weight
/// load then feeds that many FMAs), then panels, keeping at least
/// `parallelTiles` panel groups for the threads to share.
TileSizes chooseTileSizes(int64_t numPanels, int64_t numRows,
                          int64_t accumulators, int64_t parallelTiles) {
  TileSizes sizes;
  sizes.rows = largestDivisorAtMost(numRows, accumulators);
  int64_t panelLimit = std::max<int64_t>(1, accumulators / sizes.rows);
  panelLimit =
      std::min(panelLimit, std::max<int64_t>(1, numPanels / parallelTiles));
  sizes.panels = largestDivisorAtMost(numPanels, panelLimit);
  return sizes;
}

FailureOr<linalg::GenericOp> tile(RewriterBase &rewriter, linalg::GenericOp op,
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
  rewriter.replaceOp(op, tiled->replacements);
  return cast<linalg::GenericOp>(tiled->tiledOps.back());
}

/// Tiles one task's projection (all rows, a group of panels) into
/// register tiles over the input features and vectorises the tile.
LogicalResult buildRegisterTile(RewriterBase &rewriter, linalg::GenericOp task,
                                int64_t rows) {
  FailureOr<linalg::GenericOp> kernel = tile(
      rewriter, task, {0, rows, 1, 0}, scf::SCFTilingOptions::LoopType::ForOp);
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

/// Tiles `op` into micro-kernel tiles and vectorises the innermost one.
LogicalResult buildMicroKernel(RewriterBase &rewriter, linalg::GenericOp op,
                               int64_t accumulators, int64_t parallelTiles) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  TileSizes sizes = chooseTileSizes(extents[kPanel], extents[kRow],
                                    accumulators, parallelTiles);
  FailureOr<linalg::GenericOp> task =
      tile(rewriter, op, {sizes.panels, 0, 0, 0},
           scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(task))
    return op.emitOpError("could not be tiled over output panels");
  return buildRegisterTile(rewriter, *task, sizes.rows);
}

/// A projection whose two halves of output panels one elementwise op
/// combines column by column: after tfm-fuse-ffn, SwiGLU's stacked gate and
/// up projections and their `silu(gate) * up`, which reads the two halves
/// of the projection's columns.
struct GatedProjection {
  linalg::GenericOp projection;
  linalg::GenericOp epilogue;
  /// Which half of the panels (0 or 1) each epilogue input reads.
  int64_t inputHalf[2] = {-1, -1};
};

/// Matches `projection -> collapse_shape -> two column-half slices ->
/// elementwise epilogue` (see GatedProjection).
std::optional<GatedProjection>
matchGatedProjection(linalg::GenericOp projection) {
  Value result = projection->getResult(0);
  if (!result.hasOneUse() ||
      !projection.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>())
    return std::nullopt;
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(*result.user_begin());
  SmallVector<ReassociationIndices> panelsToColumns = {{0}, {1, 2}};
  if (!collapse || collapse.getReassociationIndices() != panelsToColumns)
    return std::nullopt;
  auto type = cast<RankedTensorType>(result.getType());
  int64_t rows = type.getDimSize(0), panels = type.getDimSize(1);
  if (panels % 2 != 0)
    return std::nullopt;
  int64_t halfColumns = panels / 2 * type.getDimSize(2);

  GatedProjection gated;
  gated.projection = projection;
  SmallVector<Operation *> users(collapse->getUsers());
  if (users.size() != 2)
    return std::nullopt;
  for (Operation *user : users) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !slice->hasOneUse() || !slice.hasUnitStride())
      return std::nullopt;
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> sizes = slice.getStaticSizes();
    // Rows [0, rows) of columns [0, half) or [half, 2 * half).
    bool wholeHalf = offsets[0] == 0 &&
                     (offsets[1] == 0 || offsets[1] == halfColumns) &&
                     sizes[0] == rows && sizes[1] == halfColumns;
    if (!wholeHalf)
      return std::nullopt;
    OpOperand &use = *slice->use_begin();
    auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!consumer || (gated.epilogue && consumer != gated.epilogue) ||
        use.getOperandNumber() >= 2)
      return std::nullopt;
    gated.epilogue = consumer;
    gated.inputHalf[use.getOperandNumber()] = offsets[1] / halfColumns;
  }
  linalg::GenericOp epilogue = gated.epilogue;
  if (gated.inputHalf[0] == gated.inputHalf[1] ||
      epilogue.getNumDpsInputs() != 2 || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumLoops() != 2 ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops() ||
      !llvm::all_of(epilogue.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }) ||
      epilogue.payloadUsesValueFromOperand(epilogue.getDpsInitOperand(0)) ||
      !epilogue.getBody()->getOps<linalg::IndexOp>().empty() ||
      failed(linalg::vectorizeOpPrecondition(epilogue)))
    return std::nullopt;
  return gated;
}

/// Replaces the gated projection by one projection per half and the
/// epilogue by the same elementwise body over the halves' `[rows][panels /
/// 2][lanes]` panel layout, so that each output panel of the epilogue
/// reads the same panel of both halves. Returns the new epilogue.
linalg::GenericOp splitGatedProjection(RewriterBase &rewriter,
                                       GatedProjection gated) {
  linalg::GenericOp projection = gated.projection;
  Location loc = projection.getLoc();
  auto type = cast<RankedTensorType>(projection->getResult(0).getType());
  int64_t rows = type.getDimSize(0), panels = type.getDimSize(1) / 2,
          lanes = type.getDimSize(2);
  Type element = type.getElementType();
  auto halfType = RankedTensorType::get({rows, panels, lanes}, element);
  Value weights = projection.getDpsInputOperand(1)->get();
  int64_t features = cast<RankedTensorType>(weights.getType()).getDimSize(1);
  auto fill =
      projection.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();

  rewriter.setInsertionPoint(gated.epilogue);
  Value halves[2];
  for (int64_t half = 0; half < 2; ++half) {
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(half * panels),
                                         rewriter.getIndexAttr(0),
                                         rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(panels),
                                       rewriter.getIndexAttr(features),
                                       rewriter.getIndexAttr(lanes)};
    SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
    Value halfWeights = tensor::ExtractSliceOp::create(rewriter, loc, weights,
                                                       offsets, sizes, strides);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, halfType.getShape(), element);
    Value init = linalg::FillOp::create(rewriter, loc, fill.getInputs(),
                                        ValueRange{empty})
                     .getResult(0);
    auto halfProjection = cast<linalg::GenericOp>(rewriter.clone(*projection));
    halfProjection.getDpsInputOperand(1)->set(halfWeights);
    halfProjection.getDpsInitOperand(0)->set(init);
    halfProjection->getResult(0).setType(halfType);
    halves[half] = halfProjection->getResult(0);
  }

  Value output =
      tensor::EmptyOp::create(rewriter, loc, halfType.getShape(), element);
  AffineMap identity = rewriter.getMultiDimIdentityMap(3);
  auto epilogue = linalg::GenericOp::create(
      rewriter, loc, TypeRange{halfType},
      ValueRange{halves[gated.inputHalf[0]], halves[gated.inputHalf[1]]},
      ValueRange{output}, SmallVector<AffineMap>(3, identity),
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel));
  rewriter.cloneRegionBefore(gated.epilogue.getRegion(), epilogue.getRegion(),
                             epilogue.getRegion().end());
  SmallVector<ReassociationIndices> panelsToColumns = {{0}, {1, 2}};
  Value columns = tensor::CollapseShapeOp::create(
      rewriter, loc, epilogue->getResult(0), panelsToColumns);
  rewriter.replaceOp(gated.epilogue, columns);
  return epilogue;
}

/// Tiles the split epilogue over output panels and fuses both halves'
/// projections into each task: a task computes its panels of the gate and
/// of the up projection in registers, then their combination, so the
/// epilogue runs on every thread and no separate pass reads the
/// projection's output again.
LogicalResult buildGatedKernel(RewriterBase &rewriter,
                               linalg::GenericOp epilogue, int64_t accumulators,
                               int64_t parallelTiles) {
  auto type = cast<RankedTensorType>(epilogue->getResult(0).getType());
  TileSizes sizes = chooseTileSizes(type.getDimSize(1), type.getDimSize(0),
                                    accumulators, parallelTiles);
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), {0, sizes.panels, 0}));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // Only the two halves and their fills: the projections' input (a norm,
  // say) is computed once, before the loop. The halves' results stay
  // outputs of the loop, so that each task's tiles are slices of buffers
  // allocated once rather than temporaries of every iteration.
  SmallVector<Operation *> halves;
  for (Value input : epilogue.getDpsInputs())
    halves.push_back(input.getDefiningOp());
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *op = producer.getOwner();
        if (llvm::is_contained(halves, op))
          return scf::SCFTileAndFuseOptions::ControlFnResult{true};
        if (isa<linalg::FillOp>(op))
          return scf::SCFTileAndFuseOptions::ControlFnResult{false};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(epilogue);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(epilogue.getOperation()), options);
  if (failed(fused))
    return epilogue.emitOpError("could not be fused with its projections");
  rewriter.replaceAllUsesWith(
      epilogue->getResult(0),
      fused->replacements.lookup(epilogue->getResult(0)));

  for (Operation *op : fused->tiledAndFusedOps) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && isPanelProjection(generic)) {
      if (failed(buildRegisterTile(rewriter, generic, sizes.rows)))
        return failure();
    } else if (op == fused->tiledAndFusedOps.front()) {
      // The epilogue: one row of the task's panels at a time.
      FailureOr<linalg::GenericOp> row =
          tile(rewriter, cast<linalg::GenericOp>(op), {1, 0, 0},
               scf::SCFTilingOptions::LoopType::ForOp);
      if (failed(row))
        return op->emitOpError("epilogue could not be tiled into rows");
      rewriter.setInsertionPoint(*row);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, *row);
      if (failed(vectorized))
        return op->emitOpError("epilogue could not be vectorised");
      rewriter.replaceOp(*row, vectorized->replacements);
    }
  }
  return success();
}

struct TfmTileProjections
    : mlir::tfm::impl::TfmTileProjectionsBase<TfmTileProjections> {
  using TfmTileProjectionsBase::TfmTileProjectionsBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (accumulators < 1 || parallelTiles < 1) {
      root->emitError() << "tfm-tile-projections: accumulators and "
                           "parallel-tiles must be positive";
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> projections;
    root->walk([&](linalg::GenericOp op) {
      if (isPanelProjection(op))
        projections.push_back(op);
    });
    if (projections.empty())
      return;
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : projections) {
      if (fuseEpilogues) {
        if (std::optional<GatedProjection> gated = matchGatedProjection(op)) {
          linalg::GenericOp epilogue = splitGatedProjection(rewriter, *gated);
          if (failed(buildGatedKernel(rewriter, epilogue, accumulators,
                                      parallelTiles)))
            return signalPassFailure();
          continue;
        }
      }
      if (failed(buildMicroKernel(rewriter, op, accumulators, parallelTiles)))
        return signalPassFailure();
    }

    // The vectorised tile multiplies broadcasts and reduces over the unit
    // feature dimension: as a vector.contract with the leading unit
    // dimensions dropped, the accumulator read and write fold to plain
    // transfers of the output tile.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    for (Dialect *dialect : getContext().getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName name : getContext().getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, &getContext());
    // Like the canonicalizer, a rewrite that has not converged is still a
    // correct program.
    (void)applyPatternsGreedily(root, std::move(patterns));

    // Innermost loops first: the accumulator tile leaves the feature loop
    // as an iter_args vector (in registers), read once and written once.
    // Only the micro-kernels' loops carry tensors at this point.
    SmallVector<LoopLikeOpInterface> loops;
    root->walk([&](scf::ForOp loop) {
      if (llvm::any_of(loop.getInitArgs(), [](Value init) {
            return isa<RankedTensorType>(init.getType());
          }))
        loops.push_back(loop);
    });
    for (LoopLikeOpInterface loop : loops)
      (void)hoistLoopInvariantSubsets(rewriter, loop);
  }
};

} // namespace
