//===- TileProjections.cpp - Register-blocked projection micro-kernels ----===//
//
// The projections whose kernel configuration (#tfm_cpu.projection, set by
// tfm-cpu-lower-projections) says how many accumulators their register tile
// has, `out[s, p, j] += x[s, k] * w[p, k, j]` over loops (p, s, k, j) or
// the scaled sum over blocks of a block-quantized projection, become:
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
// Elementwise epilogues join their projections' tasks
// (ProjectionEpilogues.h); the loop forms the kernels rely on are
// ProjectionMatchers.h's, their tiling steps ProjectionTiling.h's.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/CPU/ProjectionEpilogues.h"
#include "passes/Codegen/CPU/ProjectionMatchers.h"
#include "passes/Codegen/CPU/ProjectionTiling.h"

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
#define GEN_PASS_DEF_TFMCPUTILEPROJECTIONS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;

namespace {

/// Tiles `op` into micro-kernel tiles and vectorises the innermost one.
LogicalResult buildMicroKernel(RewriterBase &rewriter, linalg::GenericOp op,
                               TileBudget budget) {
  TileSizes sizes =
      chooseProjectionTileSizes(op, op.getStaticLoopRanges()[kPanel], budget);
  SmallVector<int64_t> taskSizes(op.getNumLoops(), 0);
  taskSizes[kPanel] = sizes.panels;
  FailureOr<linalg::GenericOp> task =
      tile(rewriter, op, taskSizes, scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(task))
    return op.emitOpError("could not be tiled over output panels");
  return buildRegisterTile(rewriter, *task, sizes.rows);
}

/// The micro-kernel of a Q8_0 / Q4_0 / k-quant projection: threads share
/// groups of output panels, each group's scaled sum (with its partial
/// products) tiled into register tiles (buildBlockRegisterTile).
LogicalResult buildBlockKernel(RewriterBase &rewriter,
                               linalg::GenericOp scaledSum, TileBudget budget) {
  TileSizes sizes = chooseProjectionTileSizes(
      scaledSum, scaledSum.getStaticLoopRanges()[kPanel], budget);
  SmallVector<int64_t> taskSizes(scaledSum.getNumLoops(), 0);
  taskSizes[kPanel] = sizes.panels;
  FailureOr<BlockTile> task =
      tileWithPartials(rewriter, scaledSum, taskSizes,
                       scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(task))
    return scaledSum.emitOpError("could not be tiled over output panels");
  return buildBlockRegisterTile(rewriter, task->scaledSum, sizes.rows);
}

/// `transfer_read(transfer_write(splat, t))` where the in-bounds write
/// covers all of `t`: every element read is the splat's, whatever the
/// read's permutation (upstream folds only reads that match the write).
/// This removes the zero fill of the partial accumulators, whose write and
/// read differ in the unit dimensions they drop.
struct ForwardWholeSplatWrite : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto write = read.getBase().getDefiningOp<vector::TransferWriteOp>();
    if (!write || read.getMask() || write.getMask() ||
        !isa<RankedTensorType>(write.getBase().getType()))
      return failure();
    auto tensorType = cast<RankedTensorType>(write.getBase().getType());
    VectorType written = write.getVectorType();
    if (!write.getPermutationMap().isIdentity() ||
        written.getShape() != tensorType.getShape() ||
        llvm::any_of(write.getIndices(),
                     [](Value index) { return !isZeroInteger(index); }) ||
        llvm::any_of(read.getInBoundsValues(), [](bool in) { return !in; }))
      return failure();
    SplatElementsAttr splat;
    if (!matchPattern(write.getVector(), m_Constant(&splat)))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        read, SplatElementsAttr::get(read.getVectorType(),
                                     splat.getSplatValue<Attribute>()));
    return success();
  }
};

struct TfmCpuTileProjections
    : mlir::tfm::impl::TfmCpuTileProjectionsBase<TfmCpuTileProjections> {
  using TfmCpuTileProjectionsBase::TfmCpuTileProjectionsBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (parallelTiles < 1) {
      root->emitError() << "tfm-cpu-tile-projections: parallel-tiles must be "
                           "positive";
      return signalPassFailure();
    }
    if (kquantGemvPanels < 0) {
      root->emitError() << "tfm-cpu-tile-projections: kquant-gemv-panels must "
                           "not be negative";
      return signalPassFailure();
    }
    // The kernels are the ops that carry a projection's configuration; the
    // form of each says which kernel it is.
    SmallVector<linalg::GenericOp> projections;
    root->walk([&](linalg::GenericOp op) {
      if (getProjectionConfig(op))
        projections.push_back(op);
    });
    if (projections.empty())
      return;
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : projections) {
      TileBudget budget = {getProjectionConfig(op).getAccumulators(),
                           parallelTiles, kquantGemvPanels};
      bool panels = isPanelProjection(op);
      if (!panels && !blockPartialsOfScaledSum(op)) {
        op.emitOpError() << "carries a projection's kernel configuration but "
                            "is neither a static panel projection nor the "
                            "scaled sum of one over blocks";
        return signalPassFailure();
      }
      if (fuseEpilogues) {
        if (std::optional<ProjectionEpilogue> match =
                matchProjectionEpilogue(op, budget)) {
          linalg::GenericOp epilogue =
              rewriteEpilogueOverPanels(rewriter, *match);
          if (failed(buildEpilogueKernel(rewriter, epilogue, match->sizes)))
            return signalPassFailure();
          continue;
        }
      }
      if (failed(panels ? buildMicroKernel(rewriter, op, budget)
                        : buildBlockKernel(rewriter, op, budget)))
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

    // Hoisted out of the quant loop, the read of the zeroed partial
    // accumulators reads the zero fill: it becomes the zero vector.
    RewritePatternSet forwarding(&getContext());
    forwarding.add<ForwardWholeSplatWrite>(&getContext());
    (void)applyPatternsGreedily(root, std::move(forwarding));
  }
};

} // namespace
