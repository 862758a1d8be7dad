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
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
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
  FailureOr<linalg::GenericOp> kernel =
      tile(rewriter, *task, {0, sizes.rows, 1, 0},
           scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(kernel))
    return op.emitOpError("could not be tiled into register tiles");
  rewriter.setInsertionPoint(*kernel);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, *kernel);
  if (failed(vectorized))
    return op.emitOpError("register tile could not be vectorised");
  rewriter.replaceOp(*kernel, vectorized->replacements);
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
    for (linalg::GenericOp op : projections)
      if (failed(buildMicroKernel(rewriter, op, accumulators, parallelTiles)))
        return signalPassFailure();

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
