//===- CudaBackend.h - tfmc --target=cuda: MLIR gpu -> NVVM -> PTX --------===//
#ifndef TFMC_COMPILER_BACKENDS_CUDA_CUDABACKEND_H
#define TFMC_COMPILER_BACKENDS_CUDA_CUDABACKEND_H

#include "compiler/backends/TargetBackend.h"
#include "compiler/backends/common/CodeGeneratorOptions.h"
#include "passes/Codegen/GPU/GpuPipeline.h"

#include "llvm/IR/Module.h"

namespace tfmc {

/// Generates code for NVIDIA GPUs through the GPU pass pipeline
/// (passes/Codegen/GPU): kernels tiled over blocks, warps and threads,
/// lowered through NVVM to PTX (and cubins by the toolkit's ptxas) in one
/// fatbin, and a host object that launches them on the caller's stream
/// through the CUDA device runtime (runtime/device/cuda/, libtfmrt_cuda.a).
/// The weights are the blob the CPU reads unpacked (row-major, f32),
/// copied to the device once.
///
/// Stages: linalg (linalg on tensors), mapped (kernels as foralls mapped to
/// blocks, warps and threads on buffers; runs on a CPU), gpu (outlined
/// kernels in one gpu.module in NVVM, host code in the gpu dialect), llvm
/// (host code in the LLVM dialect with the fatbin as a gpu.binary); the
/// artifacts llvm-ir, asm and obj of the host object and ptx, the kernels'
/// PTX.
class CudaBackend : public TargetBackend {
public:
  CudaBackend();
  ~CudaBackend() override;

  llvm::StringRef name() const override { return "cuda"; }
  llvm::StringRef summary() const override {
    return "NVIDIA GPUs (sm_80 and newer) through MLIR's gpu dialect and "
           "NVVM";
  }
  std::vector<mlir::tfm::OptionGroup *> optionGroups() override;
  llvm::Expected<mlir::tfm::TargetAttr>
  describeTarget(mlir::MLIRContext &context) override;
  uint32_t device() const override { return TFM_DEVICE_CUDA; }
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

  mlir::tfm::GpuCodegenOptions codegen;
  mlir::tfm::OptionGroupOf<mlir::tfm::GpuCodegenOptions> codegenGroup;
  CodeGeneratorOptions generators;
  mlir::tfm::OptionGroupOf<CodeGeneratorOptions> generatorGroup;
  /// Where the kernel serialisation writes the PTX that `--compile-to=ptx`
  /// returns: the user's `--ptx-file`, or a temporary file of this backend.
  std::string ptxPath;
  bool ptxPathIsTemporary = false;
};

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_CUDA_CUDABACKEND_H
