//===- CpuBackend.h - tfmc --target=cpu: MLIR -> LLVM -> native code ------===//
#ifndef TFMC_COMPILER_BACKENDS_LLVMCPU_CPUBACKEND_H
#define TFMC_COMPILER_BACKENDS_LLVMCPU_CPUBACKEND_H

#include "compiler/backends/TargetBackend.h"
#include "passes/Codegen/CPU/CpuPipeline.h"

namespace tfmc {

/// Options that describe the CPU rather than how to compile for it, and
/// those of the LLVM code generator after the pass pipeline.
struct CpuTargetOptions : public mlir::tfm::PhaseOptions<CpuTargetOptions> {
  Option<std::string> targetCpu{
      *this, "target-cpu",
      llvm::cl::desc("CPU to generate code for, as LLVM names it (default: "
                     "this machine, with the features it reports)"),
      llvm::cl::init("")};
  Option<bool> sanitizeThread{
      *this, "sanitize-thread",
      llvm::cl::desc("Instrument the generated code for ThreadSanitizer (a "
                     "program that links it needs -fsanitize=thread)"),
      llvm::cl::init(false)};
};

/// Generates code for CPUs through the CPU pass pipeline
/// (passes/Codegen/CPU) and LLVM: one object whose entries read the weights
/// as one blob, linked with the runtime and the OpenMP runtime.
///
/// Stages: linalg (linalg/vector on tensors), llvm (LLVM dialect),
/// llvm-ir, asm, obj.
class CpuBackend : public TargetBackend {
public:
  CpuBackend();

  llvm::StringRef name() const override { return "cpu"; }
  llvm::StringRef summary() const override {
    return "native code for the host (or --target-cpu) through LLVM";
  }
  std::vector<mlir::tfm::OptionGroup *> optionGroups() override;
  llvm::ArrayRef<BackendStage> stages() const override;
  llvm::Expected<mlir::tfm::TargetAttr>
  describeTarget(mlir::MLIRContext &context) override;
  llvm::Error compile(BackendSession &session) override;
  LinkInputs linkInputs() const override;

private:
  mlir::tfm::CpuCodegenOptions codegen;
  CpuTargetOptions target;
  mlir::tfm::OptionGroupOf<mlir::tfm::CpuCodegenOptions> codegenGroup;
  mlir::tfm::OptionGroupOf<CpuTargetOptions> targetGroup;
};

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_LLVMCPU_CPUBACKEND_H
