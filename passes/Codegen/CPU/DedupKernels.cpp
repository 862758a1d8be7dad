//===- DedupKernels.cpp - One function for structurally equal kernels -----===//
//
// Once tfm-cpu-outline-kernels has made a layer's buffers arguments, the
// layers of equal shapes have equal kernels. This pass keeps the first of
// each set of equal kernels and points the calls of the others at it, so
// the code LLVM compiles is one layer's, however deep the model.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUDEDUPKERNELS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

bool equalKernels(func::FuncOp a, func::FuncOp b) {
  return a.getFunctionType() == b.getFunctionType() &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

struct TfmCpuDedupKernels
    : mlir::tfm::impl::TfmCpuDedupKernelsBase<TfmCpuDedupKernels> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Kept kernels, bucketed by signature and size: most kernels have a
    // bucket of their own, and only the others are compared op by op.
    DenseMap<std::pair<Type, size_t>, SmallVector<func::FuncOp>> kept;
    DenseMap<StringAttr, FlatSymbolRefAttr> replacement;
    for (auto kernel :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!kernel->hasAttr(kKernelAttrName) || kernel.isExternal())
        continue;
      size_t size = 0;
      kernel.walk([&](Operation *) { ++size; });
      auto &bucket = kept[{kernel.getFunctionType(), size}];
      auto *equal = llvm::find_if(bucket, [&](func::FuncOp candidate) {
        return equalKernels(candidate, kernel);
      });
      if (equal == bucket.end()) {
        bucket.push_back(kernel);
        continue;
      }
      replacement[kernel.getSymNameAttr()] =
          FlatSymbolRefAttr::get(equal->getSymNameAttr());
      kernel.erase();
    }
    if (replacement.empty())
      return;
    module.walk([&](func::CallOp call) {
      if (FlatSymbolRefAttr to =
              replacement.lookup(call.getCalleeAttr().getAttr()))
        call.setCalleeAttr(to);
    });
  }
};

} // namespace
