//===- DedupKernels.cpp - One gpu.func for structurally equal kernels -----===//
//
// The layers of a model with equal shapes produce equal kernels once their
// weights and cache slices are arguments (tfm-gpu-map-to-launches): this
// pass keeps the first of each set of equal outlined kernels and points the
// launches of the others at it, so kernel count and compile time stay those
// of one layer.
//
//===----------------------------------------------------------------------===//
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

bool equalKernels(gpu::GPUModuleOp a, gpu::GPUFuncOp fa, gpu::GPUModuleOp b,
                  gpu::GPUFuncOp fb) {
  if (attributesButName(a) != attributesButName(b) ||
      attributesButName(fa) != attributesButName(fb) ||
      fa.getFunctionType() != fb.getFunctionType())
    return false;
  return OperationEquivalence::isRegionEquivalentTo(
      &fa.getBody(), &fb.getBody(), OperationEquivalence::IgnoreLocations);
}

struct TfmGpuDedupKernels
    : mlir::tfm::impl::TfmGpuDedupKernelsBase<TfmGpuDedupKernels> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Kept kernels, bucketed by signature and size.
    DenseMap<std::pair<Type, size_t>,
             SmallVector<std::pair<gpu::GPUModuleOp, gpu::GPUFuncOp>>>
        kept;
    DenseMap<Attribute, SymbolRefAttr> replacement;
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      gpu::GPUFuncOp kernel = soleKernel(gpuModule);
      if (!kernel)
        continue;
      size_t size = 0;
      kernel.walk([&](Operation *) { ++size; });
      auto &bucket = kept[{kernel.getFunctionType(), size}];
      auto equal = llvm::find_if(bucket, [&](auto &candidate) {
        return equalKernels(candidate.first, candidate.second, gpuModule,
                            kernel);
      });
      if (equal == bucket.end()) {
        bucket.push_back({gpuModule, kernel});
        continue;
      }
      SymbolRefAttr from =
          SymbolRefAttr::get(gpuModule.getNameAttr(),
                             {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      replacement[from] = SymbolRefAttr::get(
          equal->first.getNameAttr(),
          {FlatSymbolRefAttr::get(equal->second.getNameAttr())});
      gpuModule.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr to = replacement.lookup(launch.getKernel()))
        launch.setKernelAttr(to);
    });
  }
};

} // namespace
