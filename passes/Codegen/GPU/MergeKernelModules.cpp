//===- MergeKernelModules.cpp - All kernels in one gpu.module -------------===//
//
// Outlining gives every kernel a gpu.module of its own, so every kernel
// would be its own fatbin, module load and PTX file. One module holds them
// all here: the binary loads one image at start, and --compile-to=ptx is a
// single PTX file that ptxas assembles.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUMERGEKERNELMODULES
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct TfmGpuMergeKernelModules
    : mlir::tfm::impl::TfmGpuMergeKernelModulesBase<TfmGpuMergeKernelModules> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(module.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;
    OpBuilder builder(modules.front());
    auto merged =
        gpu::GPUModuleOp::create(builder, modules.front().getLoc(), moduleName);
    SymbolTable mergedSymbols(merged);
    DenseMap<Attribute, SymbolRefAttr> moved;
    for (gpu::GPUModuleOp gpuModule : modules) {
      if (!gpuModule->getDiscardableAttrDictionary().empty() ||
          gpuModule.getTargetsAttr() || gpuModule.getOffloadingHandlerAttr()) {
        gpuModule.emitError() << "has attributes or targets of its own: "
                                 "cannot merge it with the other kernels";
        return signalPassFailure();
      }
      // Every symbol's new name first, applied to the whole module, then
      // the moves: a kernel moved before the global it reads is renamed
      // would keep the old name.
      SmallVector<std::pair<Operation *, StringAttr>> renames;
      for (Operation &op : gpuModule.getBody()->getOperations()) {
        auto name =
            op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
        if (!name)
          continue;
        // Outlining names every kernel after its entry (`decode_kernel`)
        // and uniques only the modules: a kernel takes its module's name,
        // anything else the module's name as a prefix.
        auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
        StringAttr renamed =
            kernel && kernel.isKernel()
                ? gpuModule.getNameAttr()
                : StringAttr::get(&getContext(),
                                  gpuModule.getName() + "_" + name.getValue());
        if (mergedSymbols.lookup(renamed)) {
          op.emitError() << "would be named '" << renamed.getValue()
                         << "' as a symbol of another kernel module";
          return signalPassFailure();
        }
        renames.push_back({&op, renamed});
      }
      for (auto [op, renamed] : renames) {
        StringAttr name = SymbolTable::getSymbolName(op);
        if (failed(SymbolTable::replaceAllSymbolUses(
                name, renamed, &gpuModule.getBodyRegion())))
          return signalPassFailure();
        moved[SymbolRefAttr::get(gpuModule.getNameAttr(),
                                 {FlatSymbolRefAttr::get(name)})] =
            SymbolRefAttr::get(merged.getNameAttr(),
                               {FlatSymbolRefAttr::get(renamed)});
        SymbolTable::setSymbolName(op, renamed);
      }
      for (auto [op, renamed] : renames) {
        op->moveBefore(merged.getBody(), merged.getBody()->end());
        mergedSymbols.insert(op);
      }
      gpuModule.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr to = moved.lookup(launch.getKernel()))
        launch.setKernelAttr(to);
    });
  }
};

} // namespace
