//===- DropInPlaceResults.cpp - Drop results that return an argument ------===//
#include "passes/Codegen/Common/Passes.h"

#include "llvm/ADT/BitVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMDROPINPLACERESULTS
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct TfmDropInPlaceResults
    : mlir::tfm::impl::TfmDropInPlaceResultsBase<TfmDropInPlaceResults> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
      llvm::BitVector dropped(ret.getNumOperands());
      for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
        auto argument = dyn_cast<BlockArgument>(value);
        if (argument && argument.getOwner() == &func.getBody().front() &&
            isa<BaseMemRefType>(value.getType()))
          dropped.set(index);
      }
      if (dropped.none())
        continue;
      SmallVector<Value> kept;
      for (auto [index, value] : llvm::enumerate(ret.getOperands()))
        if (!dropped.test(index))
          kept.push_back(value);
      OpBuilder builder(ret);
      func::ReturnOp::create(builder, ret.getLoc(), kept);
      ret.erase();
      if (failed(func.eraseResults(dropped)))
        return signalPassFailure();
    }
  }
};

} // namespace
