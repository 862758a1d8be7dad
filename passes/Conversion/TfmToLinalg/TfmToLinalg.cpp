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

void mlir::tfm::populateTfmToLinalgPatterns(
    RewritePatternSet &patterns, const ProjectionLoweringOptions &options) {
  populateTfmElementwiseToLinalgPatterns(patterns);
  populateTfmNormsToLinalgPatterns(patterns);
  populateTfmProjectionsToLinalgPatterns(patterns, options);
  populateTfmPositionalToLinalgPatterns(patterns);
  populateTfmAttentionToLinalgPatterns(patterns);
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
    // as reads that each target binds to its own storage.
    target.addLegalOp<AttentionKernelOp, GlobalWeightOp, WeightOp>();
    target.addLegalDialect<
        linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
        math::MathDialect, memref::MemRefDialect,
        bufferization::BufferizationDialect, func::FuncDialect, scf::SCFDialect,
        vector::VectorDialect>();
    RewritePatternSet patterns(&getContext());
    ProjectionLoweringOptions projections;
    projections.int8Inputs = int8Inputs;
    projections.bf16Inputs = bf16Inputs;
    populateTfmToLinalgPatterns(patterns, projections);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
