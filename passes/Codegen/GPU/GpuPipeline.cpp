//===- GpuPipeline.cpp - The GPU (CUDA) code generation pipeline ----------===//
//
// linalg on tensors -> kernel configs -> block/warp/thread foralls with
// vector code in warp-wide vectors -> buffers (the IR the CPU numerics tests
// run) -> lanes and mma.sync -> gpu.launch -> outlined, deduplicated
// gpu.funcs -> NVVM -> one fatbin per kernel module (PTX and cubins) -> host
// code calling the mgpu* functions of runtime/device/cuda/.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/GpuPipeline.h"

#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/Common/EntryBufferization.h"
#include "passes/Codegen/Common/Passes.h"
#include "passes/Codegen/GPU/Passes.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tfm;

std::string mlir::tfm::kernelArch(const GpuCodegenOptions &options) {
  return options.cudaArch.empty() ? std::string("sm_80")
                                  : std::string(options.cudaArch);
}

void mlir::tfm::buildGpuConfigurationPipeline(
    OpPassManager &pm, const GpuCodegenOptions &options) {
  TfmGpuSelectWeightTypesOptions select;
  select.weights = options.weights;
  pm.addPass(createTfmGpuSelectWeightTypes(select));
}

void mlir::tfm::buildGpuLinalgPipeline(OpPassManager &pm) {
  // A mixture of experts as ops whose bodies read the choices: the kernels
  // find the chosen experts' rows on the device.
  ConvertTfmToLinalgOptions linalg;
  linalg.moe = MoEForm::gathers;
  pm.addPass(createConvertTfmToLinalg(linalg));
}

static void cleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tfm::buildGpuMappedPipeline(OpPassManager &pm,
                                       const GpuCodegenOptions &options) {
  // The weights are one device buffer laid out as on the CPU (the package
  // is the same); each tfm.weight becomes a view of it.
  pm.addPass(createTfmCpuBindWeights());
  cleanup(pm);
  if (options.fuseElementwise) {
    pm.addPass(createTfmFuseElementwise());
    cleanup(pm);
  }
  // Every reduction's tiles fill their own slice of its output.
  pm.addNestedPass<func::FuncOp>(createTfmSplitSharedFills());

  TfmGpuSelectKernelConfigOptions select;
  select.arch = kernelArch(options);
  select.tensorCores = options.tensorCores;
  select.attentionSplits = options.attentionSplits;
  pm.addPass(createTfmGpuSelectKernelConfig(select));
  pm.addNestedPass<func::FuncOp>(createTfmGpuTileAndDistribute());
  pm.addNestedPass<func::FuncOp>(createTfmGpuLowerAttention());
  cleanup(pm);
  pm.addNestedPass<func::FuncOp>(createTfmGpuVectorize());
  cleanup(pm);

  // Polynomials instead of libdevice calls for exp/tanh/erf: plain FMAs in
  // the kernels (sin/cos of RoPE still come from libdevice).
  pm.addPass(createTfmApproximateMath());
  // As on the CPU: the cache updated in place, the logits written to the
  // caller's buffer.
  addEntryBufferizationPasses(pm);
  cleanup(pm);
  // The token ids come from host memory and the outputs go back to it: each
  // through a device copy, deallocated and planned into the scratch with
  // the rest.
  pm.addNestedPass<func::FuncOp>(createTfmGpuStageHostBuffers());
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Intermediates in the caller's scratch (a device buffer), planned at
  // compile time as on the CPU: no allocation per call.
  pm.addNestedPass<func::FuncOp>(
      bufferization::createOptimizeAllocationLivenessPass());
  pm.addPass(createTfmCpuPlanMemory());
  cleanup(pm);
}

void mlir::tfm::buildGpuKernelsPipeline(OpPassManager &pm,
                                        const GpuCodegenOptions &options) {
  pm.addNestedPass<func::FuncOp>(createTfmGpuDistributeToLanes());
  // What no config vectorised (a thread's reduction, fills) as loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  cleanup(pm);
  pm.addNestedPass<func::FuncOp>(createTfmGpuMapToLaunches());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createTfmGpuDedupKernels());
  pm.addPass(createTfmGpuMergeKernelModules());

  // The kernels: NVVM.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createTfmGpuExpandSubgroupReduce());
  kernels.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createTfmGpuLowerVectors());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tfm::buildGpuHostPipeline(OpPassManager &pm,
                                     const GpuCodegenOptions &options) {
  TfmGpuSerializeKernelsOptions serialize;
  std::string arch = kernelArch(options);
  serialize.ptx = {arch};
  serialize.cubin = {options.cudaArch.empty() ? std::string("sm_90") : arch};
  serialize.toolkit = options.cudaToolkit;
  serialize.ptxFile = options.ptxFile;
  pm.addPass(createTfmGpuSerializeKernels(serialize));

  // The host: launches on one stream per entry call (the caller's, once
  // tfm-gpu-use-entry-stream has run). The entries take bare
  // pointers (the ABI): their signatures are converted first, so that
  // gpu-to-llvm passes the kernels full memref descriptors (their buffers
  // have dynamic offsets and sizes), built from those pointers.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // The launches on the stream the caller passes (ABI 8).
  pm.addPass(createTfmGpuUseEntryStream());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tfm::buildGpuToLLVMPipeline(OpPassManager &pm,
                                       const GpuCodegenOptions &options) {
  buildGpuKernelsPipeline(pm, options);
  buildGpuHostPipeline(pm, options);
}

void mlir::tfm::buildGpuCodegenPipeline(OpPassManager &pm,
                                        const GpuCodegenOptions &options) {
  buildGpuMappedPipeline(pm, options);
  buildGpuToLLVMPipeline(pm, options);
}

/// The configuration and the linalg pipeline, then `rest`: a pipeline
/// that takes the fused tfm IR (on linalg, the first two find nothing to
/// do).
static std::function<void(OpPassManager &, const GpuCodegenOptions &)>
fromFused(void (*rest)(OpPassManager &, const GpuCodegenOptions &)) {
  return [rest](OpPassManager &pm, const GpuCodegenOptions &options) {
    buildGpuConfigurationPipeline(pm, options);
    buildGpuLinalgPipeline(pm);
    rest(pm, options);
  };
}

void mlir::tfm::registerGpuPipelines() {
  PassPipelineRegistration<GpuCodegenOptions>(
      "tfm-gpu-pipeline",
      "fused tfm or linalg on tensors -> host code launching CUDA kernels "
      "(PTX + cubin)",
      fromFused(buildGpuCodegenPipeline));
  PassPipelineRegistration<GpuCodegenOptions>(
      "tfm-gpu-mapped-pipeline",
      "fused tfm or linalg on tensors -> kernels as mapped foralls on "
      "buffers (runs on a CPU)",
      fromFused(buildGpuMappedPipeline));
}
