//===- CodeGeneratorOptions.cpp - LLVM or Halide, per kernel kind ---------===//
#include "compiler/backends/common/CodeGeneratorOptions.h"

#include "compiler/backends/halide/HalideKernels.h"
#include "passes/Codegen/Halide/KernelKinds.h"
#include "passes/Codegen/Halide/Passes.h"

#include "mlir/Transforms/Passes.h"

using namespace tfmc;

llvm::Expected<std::vector<std::string>>
tfmc::halideKernelKinds(const CodeGeneratorOptions &options) {
  std::string error;
  std::optional<mlir::tfm::halide::KernelBackends> backends =
      mlir::tfm::halide::parseKernelBackends(options.backend,
                                             options.kernelBackend, error);
  if (!backends)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  if (!halide::parseSchedulerName(options.halideAutoschedule))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown --halide-autoschedule '" + options.halideAutoschedule +
            "' (hand, adams2019, mullapudi2016 or li2018)");
  std::vector<std::string> kinds = backends->halideKinds();
  if (!kinds.empty()) {
    auto generator = findHalideGenerator();
    if (!generator)
      return generator.takeError();
  }
  return kinds;
}

void tfmc::addHalideOutlining(mlir::OpPassManager &pm,
                              const std::vector<std::string> &kinds,
                              const CodeGeneratorOptions &options) {
  if (kinds.empty())
    return;
  mlir::tfm::TfmHalideOutlineKernelsOptions outline;
  outline.kinds.assign(kinds.begin(), kinds.end());
  outline.schedule = options.halideAutoschedule;
  pm.addPass(mlir::tfm::createTfmHalideOutlineKernels(outline));
  pm.addPass(mlir::createCanonicalizerPass());
}
