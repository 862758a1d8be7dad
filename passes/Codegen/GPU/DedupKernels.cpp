//===- DedupKernels.cpp - One gpu.func for structurally equal kernels -----===//
//
// The layers of a model with equal shapes produce equal kernels once their
// weights and cache slices are arguments (tfm-gpu-map-to-launches): this
// pass keeps the first of each set of equal outlined kernels and points the
// launches of the others at it, so kernel count and compile time stay those
// of one layer.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/Common/EqualFunctions.h"
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUDEDUPKERNELS
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The one kernel of an outlined module, or null.
gpu::GPUFuncOp soleKernel(gpu::GPUModuleOp module) {
  gpu::GPUFuncOp kernel;
  for (auto func : module.getOps<gpu::GPUFuncOp>()) {
    if (kernel)
      return {};
    kernel = func;
  }
  return kernel;
}

/// The attributes of `op` but its name.
DictionaryAttr attributesButName(Operation *op) {
  NamedAttrList attrs(op->getAttrDictionary());
  attrs.erase(SymbolTable::getSymbolAttrName());
  return attrs.getDictionary(op->getContext());
}

/// Equal kernels in equal modules (their targets and options).
bool equalKernels(gpu::GPUFuncOp a, gpu::GPUFuncOp b) {
  auto moduleA = a->getParentOfType<gpu::GPUModuleOp>();
  auto moduleB = b->getParentOfType<gpu::GPUModuleOp>();
  if (attributesButName(moduleA) != attributesButName(moduleB) ||
      attributesButName(a) != attributesButName(b) ||
      a.getFunctionType() != b.getFunctionType())
    return false;
  return OperationEquivalence::isRegionEquivalentTo(
      &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

struct TfmGpuDedupKernels
    : mlir::tfm::impl::TfmGpuDedupKernelsBase<TfmGpuDedupKernels> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    EqualFunctions<gpu::GPUFuncOp> kept;
    DenseMap<Attribute, SymbolRefAttr> replacement;
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      gpu::GPUFuncOp kernel = soleKernel(gpuModule);
      if (!kernel)
        continue;
      gpu::GPUFuncOp equal = kept.findOrKeep(kernel, equalKernels);
      if (!equal)
        continue;
      SymbolRefAttr from =
          SymbolRefAttr::get(gpuModule.getNameAttr(),
                             {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      auto equalModule = equal->getParentOfType<gpu::GPUModuleOp>();
      replacement[from] =
          SymbolRefAttr::get(equalModule.getNameAttr(),
                             {FlatSymbolRefAttr::get(equal.getNameAttr())});
      gpuModule.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr to = replacement.lookup(launch.getKernel()))
        launch.setKernelAttr(to);
    });
  }
};

} // namespace
