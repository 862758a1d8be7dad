//===- tfmc-opt.cpp - mlir-opt with the tfm dialect, passes and pipelines -===//
#include "dialect/TfmOps.h"
#include "passes/Codegen/CPU/IR/TfmCpuOps.h"
#include "passes/Codegen/GPU/GpuPipeline.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tfm::registerTfmPasses();
  mlir::tfm::registerTfmPipelines();
  mlir::tfm::registerGpuPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry
      .insert<mlir::tfm::TfmDialect, mlir::tfm::cpu::TfmCpuDialect,
              mlir::tfm::TfmGpuDialect, mlir::tfm::halide::TfmHalideDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tfmc optimizer driver\n", registry));
}
