//===- GpuPipeline.h - The GPU (CUDA) code generation pipeline --*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_GPU_GPUPIPELINE_H
#define TFMC_PASSES_CODEGEN_GPU_GPUPIPELINE_H

#include "passes/Codegen/GPU/GpuWeightType.h"
#include "passes/PipelineOptions.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::tfm {

/// Options of the GPU code generation phase (tfmc's flags when
/// --target=cuda, and the tfm-gpu-pipeline's options).
struct GpuCodegenOptions : public PhaseOptions<GpuCodegenOptions> {
  Option<std::string> cudaArch{
      *this, "cuda-arch",
      llvm::cl::desc("The GPU to generate code for: sm_80, sm_86, sm_89 or "
                     "sm_90, embedded as its PTX and a cubin (default: "
                     "kernels chosen for sm_80, its PTX and an sm_90 cubin "
                     "embedded)"),
      llvm::cl::init("")};
  Option<GpuWeightType> weights{
      *this, "weights",
      llvm::cl::desc("Element type of the projection matrices: stored (f16, "
                     "bf16, Q8_0 or Q4_0 where the model file stores them "
                     "so, else f32), f32, f16, bf16, q8_0 or q4_0 (see "
                     "docs/cuda.md)"),
      llvm::cl::init(GpuWeightType::stored), gpuWeightTypeValues()};
  Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Prefill projections over f16/bf16 weights on tensor "
                     "cores (unfinished: their mma.sync lowering fails with "
                     "a diagnostic)"),
      llvm::cl::init(false)};
  Option<int64_t> attentionSplits{
      *this, "attention-splits",
      llvm::cl::desc("Key ranges decode attention walks in parallel (0: one "
                     "per 256 cache positions)"),
      llvm::cl::init(0)};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse elementwise producers into their consumers "
                     "(fewer kernels)"),
      llvm::cl::init(true)};
  Option<std::string> ptxFile{
      *this, "ptx-file",
      llvm::cl::desc("Also write the PTX of all kernels to this file (one "
                     "file that ptxas assembles)"),
      llvm::cl::init("")};
  Option<std::string> cudaToolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("CUDA toolkit whose ptxas and fatbinary assemble the "
                     "cubins"),
      llvm::cl::init("/usr/local/cuda")};
};

/// The fused tfm IR -> the same with the GPU's weight declarations
/// (tfm-gpu-select-weight-types), before convert-tfm-to-linalg.
void buildGpuConfigurationPipeline(OpPassManager &pm,
                                   const GpuCodegenOptions &options);
/// That -> linalg on tensors, a mixture of experts in the form whose every
/// step is a kernel (convert-tfm-to-linalg=moe=gathers).
void buildGpuLinalgPipeline(OpPassManager &pm);

/// The arch kernel configs are chosen for (cuda-arch, or sm_80).
std::string kernelArch(const GpuCodegenOptions &options);

/// linalg on tensors (convert-tfm-to-linalg's output) -> buffers with
/// kernels as `scf.forall`s mapped to blocks, warps and threads and vector
/// code in warp-wide vectors. This IR still runs on a CPU (foralls as
/// loops): the numerics tests execute it.
void buildGpuMappedPipeline(OpPassManager &pm,
                            const GpuCodegenOptions &options);
/// The mapped IR -> kernels outlined into one gpu.module in the NVVM
/// dialect (one gpu.func for each set of equal kernels), host code in the
/// gpu, memref and func dialects launching them.
void buildGpuKernelsPipeline(OpPassManager &pm,
                             const GpuCodegenOptions &options);
/// That -> host code in the LLVM dialect launching the kernels of a
/// gpu.binary (PTX and cubins in a fatbin) on the caller's stream through
/// the mgpu* functions of runtime/device/cuda/.
void buildGpuHostPipeline(OpPassManager &pm, const GpuCodegenOptions &options);
/// Both: the mapped IR -> host code in the LLVM dialect.
void buildGpuToLLVMPipeline(OpPassManager &pm,
                            const GpuCodegenOptions &options);
/// Both: linalg on tensors -> LLVM dialect with embedded kernels.
void buildGpuCodegenPipeline(OpPassManager &pm,
                             const GpuCodegenOptions &options);

/// Registers `tfm-gpu-pipeline` and `tfm-gpu-mapped-pipeline` for
/// tfmc-opt: the configuration and the linalg pipeline, then
/// buildGpuCodegenPipeline or buildGpuMappedPipeline, so that they take the
/// fused tfm IR (`tfmc compile --compile-to=fused`) or linalg.
void registerGpuPipelines();

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_GPU_GPUPIPELINE_H
