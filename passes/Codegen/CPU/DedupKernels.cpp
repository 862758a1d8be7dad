//===- DedupKernels.cpp - One function for structurally equal kernels -----===//
//
// Once tfm-cpu-outline-kernels has made a layer's buffers arguments, the
// layers of equal shapes have equal kernels. This pass keeps the first of
// each set of equal kernels and points the calls of the others at it, so
// the code LLVM compiles is one layer's, however deep the model.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/Common/EqualFunctions.h"

#include "mlir/IR/OperationSupport.h"

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
    EqualFunctions<func::FuncOp> kept;
    DenseMap<StringAttr, FlatSymbolRefAttr> replacement;
    for (auto kernel :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!kernel->hasAttr(kKernelAttrName) || kernel.isExternal())
        continue;
      func::FuncOp equal = kept.findOrKeep(kernel, equalKernels);
      if (!equal)
        continue;
      replacement[kernel.getSymNameAttr()] =
          FlatSymbolRefAttr::get(equal.getSymNameAttr());
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
