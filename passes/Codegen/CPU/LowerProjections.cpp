//===- LowerProjections.cpp - tfm_cpu projections to linalg ---------------===//
//
// The CPU's projections over packed weights become the linalg forms of
// their kernels (PanelProjections/), as their configurations say, and a
// lookup in a tied classifier's panels a gather; the rest of the module is
// convert-tfm-to-linalg's.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/IR/TfmCpuOps.h"
#include "passes/Codegen/CPU/PanelProjections/PanelProjections.h"
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPULOWERPROJECTIONS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct TfmCpuLowerProjections
    : mlir::tfm::impl::TfmCpuLowerProjectionsBase<TfmCpuLowerProjections> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalOp<tfm::cpu::PackedLinearOp, tfm::cpu::QuantizedLinearOp,
                        tfm::cpu::PanelEmbeddingOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    tfm::cpu::populateTfmCpuPanelProjectionPatterns(patterns);
    tfm::cpu::populateTfmCpuPanelEmbeddingPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
