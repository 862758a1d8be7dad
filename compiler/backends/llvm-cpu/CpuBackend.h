//===- CpuBackend.h - tfmc --target=cpu: MLIR -> LLVM -> native code ------===//
#ifndef TFMC_COMPILER_BACKENDS_LLVMCPU_CPUBACKEND_H
#define TFMC_COMPILER_BACKENDS_LLVMCPU_CPUBACKEND_H

#include "compiler/backends/TargetBackend.h"
#include "compiler/backends/common/CodeGeneratorOptions.h"
#include "compiler/backends/common/ObjectEmission.h"
#include "passes/Codegen/CPU/CpuPipeline.h"

#include "llvm/IR/Module.h"

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
/// (passes/Codegen/CPU) and LLVM: one host object whose kernels are its
/// own code, reading the weights as one blob, linked with the OpenMP
/// runtime. The kernel kinds --backend / --kernel-backend give to Halide
/// are tfmc-halide-gen's objects instead, which the host object calls
/// (passes/Codegen/Halide, docs/halide.md).
///
/// Stages: linalg (linalg/vector on tensors), llvm (LLVM dialect); the
/// artifacts llvm-ir, asm, obj, and halide (the Halide kernels' lowered
/// statements).
class CpuBackend : public TargetBackend {
public:
  CpuBackend();

  llvm::StringRef name() const override { return "cpu"; }
  llvm::StringRef summary() const override {
    return "native code for the host (or --target-cpu) through LLVM";
  }
  std::vector<mlir::tfm::OptionGroup *> optionGroups() override;
  llvm::Expected<mlir::tfm::TargetAttr>
  describeTarget(mlir::MLIRContext &context) override;
  uint32_t device() const override { return TFM_DEVICE_HOST; }
  llvm::ArrayRef<BackendStage> stages() const override;
  llvm::Error buildConfigurationPipeline(mlir::OpPassManager &pm,
                                         mlir::tfm::TargetAttr target) override;
  llvm::Error buildStagePipeline(llvm::StringRef stage,
                                 mlir::OpPassManager &pm) override;
  llvm::Error serializeArtifact(llvm::StringRef stage, mlir::ModuleOp module,
                                const tfm_model_info &info,
                                const std::string &path) override;
  llvm::Expected<ObjectSet>
  serializeObjects(mlir::ModuleOp module, const tfm_model_info &info,
                   const std::string &directory) override;
  LinkInputs linkInputs() const override;
  std::map<std::string, std::string>
  targetMetadata(mlir::tfm::TargetAttr target) const override;

private:
  /// The module's host object as LLVM IR, before optimisation.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, const tfm_model_info &info,
            llvm::LLVMContext &context);

  mlir::tfm::CpuCodegenOptions codegen;
  CpuTargetOptions target;
  /// The codegen options of all stages, as given (the target's defaults
  /// are resolved by tfm-cpu-select-kernel-config, in the configuration).
  mlir::tfm::CpuCodegenOptions codegenOptions;
  mlir::tfm::OptionGroupOf<mlir::tfm::CpuCodegenOptions> codegenGroup;
  mlir::tfm::OptionGroupOf<CpuTargetOptions> targetGroup;
  CodeGeneratorOptions generators;
  mlir::tfm::OptionGroupOf<CodeGeneratorOptions> generatorGroup;
  /// The kernel kinds Halide compiles (from `generators`, checked).
  std::vector<std::string> halideKinds;
};

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_LLVMCPU_CPUBACKEND_H
