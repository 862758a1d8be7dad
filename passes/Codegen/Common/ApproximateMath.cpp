//===- ApproximateMath.cpp - Inline polynomial exp and tanh ---------------===//
#include "passes/Codegen/Common/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMAPPROXIMATEMATH
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct TfmApproximateMath
    : mlir::tfm::impl::TfmApproximateMathBase<TfmApproximateMath> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    bool expTanh = this->expTanh;
    populateMathPolynomialApproximationPatterns(patterns, [&](StringRef name) {
      if (name == math::ErfOp::getOperationName())
        return true;
      return expTanh && (name == math::ExpOp::getOperationName() ||
                         name == math::TanhOp::getOperationName());
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
