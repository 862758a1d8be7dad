//===- TfmToLinalg.cpp - The convert-tfm-to-linalg pass -------------------===//
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"

#include "dialect/TfmOps.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CONVERTTFMTOLINALG
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

void mlir::tfm::populateTfmToLinalgPatterns(RewritePatternSet &patterns,
                                            MoEForm moeForm) {
  populateTfmElementwiseToLinalgPatterns(patterns);
  populateTfmNormsToLinalgPatterns(patterns);
  populateTfmProjectionsToLinalgPatterns(patterns);
  populateTfmPositionalToLinalgPatterns(patterns);
  populateTfmAttentionToLinalgPatterns(patterns);
  if (moeForm == MoEForm::gathers)
    populateTfmMoEToGathersPatterns(patterns);
  else
    populateTfmMoEToLinalgPatterns(patterns);
}

namespace {

struct ConvertTfmToLinalg
    : mlir::tfm::impl::ConvertTfmToLinalgBase<ConvertTfmToLinalg> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ConversionTarget target(getContext());
    target.addIllegalDialect<TfmDialect>();
    // Attention leaves as a kernel op that each target schedules, weights
    // as reads that each target binds to its own storage. A target's own
    // ops (the CPU's panel projections) are its to lower: unknown to this
    // target, they stay legal.
    target.addLegalOp<AttentionKernelOp, GlobalWeightOp, WeightOp>();
    target.addLegalDialect<
        linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
        math::MathDialect, memref::MemRefDialect,
        bufferization::BufferizationDialect, func::FuncDialect, scf::SCFDialect,
        vector::VectorDialect>();
    RewritePatternSet patterns(&getContext());
    populateTfmToLinalgPatterns(patterns, moe);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
