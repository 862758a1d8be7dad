//===- FuseElementwise.cpp - Elementwise fusion into parallel consumers ---===//
#include "passes/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMFUSEELEMENTWISE
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// Fuses a single-use producer only into a consumer without reductions.
bool fuseIntoParallelConsumer(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  return producer && producer->hasOneUse() && consumer &&
         consumer.getNumReductionLoops() == 0;
}

struct TfmFuseElementwise
    : mlir::tfm::impl::TfmFuseElementwiseBase<TfmFuseElementwise> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fuseIntoParallelConsumer);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
