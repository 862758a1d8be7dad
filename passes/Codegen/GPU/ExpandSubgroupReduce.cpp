//===- ExpandSubgroupReduce.cpp - Warp reductions as shuffles -------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUEXPANDSUBGROUPREDUCE
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct TfmGpuExpandSubgroupReduce
    : mlir::tfm::impl::TfmGpuExpandSubgroupReduceBase<
          TfmGpuExpandSubgroupReduce> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Vectors of sub-32-bit elements are packed into 32-bit shuffles first.
    populateGpuBreakDownSubgroupReducePatterns(patterns,
                                               /*maxShuffleBitwidth=*/32);
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, kWarpSize,
                                                    /*shuffleBitwidth=*/32);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](gpu::SubgroupReduceOp op) {
      op.emitOpError("could not be expanded to warp shuffles");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
