//===- CpuPipeline.cpp - The CPU code generation pipeline -----------------===//
//
// Fused tfm (a target chosen: #tfm.target) -> packed weights -> linalg on
// tensors with micro-kernels and flash attention -> bufferized, planned,
// OpenMP loops -> the LLVM dialect with the bare-pointer entry ABI of
// runtime/ModelABI.h.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/CpuPipeline.h"

#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/Common/EntryBufferization.h"
#include "passes/Codegen/Common/Passes.h"
#include "passes/Codegen/Halide/Passes.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tfm;

void mlir::tfm::buildCpuWeightLayoutPipeline(OpPassManager &pm,
                                             const CpuCodegenOptions &options) {
  // Every choice first, once; the passes after it apply them.
  TfmCpuSelectKernelConfigOptions choices;
  choices.weights = options.weights;
  if (options.int8Inputs.hasValue())
    choices.int8Inputs = cpu::TargetDefaultSwitch{bool(options.int8Inputs)};
  choices.bf16Inputs = options.bf16Inputs;
  choices.accumulators = options.accumulators;
  choices.streamPrefetchDistance = options.streamPrefetchDistance;
  choices.cachePrefetchDistance = options.cachePrefetchDistance;
  pm.addPass(createTfmCpuSelectKernelConfig(choices));
  if (options.packWeights) {
    pm.addPass(createTfmCpuPackWeights());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
}

void mlir::tfm::buildCpuToLinalgPipeline(OpPassManager &pm,
                                         const CpuCodegenOptions &options) {
  pm.addPass(createConvertTfmToLinalg());
  pm.addPass(createTfmCpuLowerProjections());
  pm.addPass(createTfmCpuBindWeights());
  if (options.fuseAttention)
    pm.addPass(createTfmCpuTileAttention());
  else
    pm.addPass(createTfmDecomposeAttention());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.fuseElementwise) {
    pm.addPass(createTfmFuseElementwise());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (options.tileProjections) {
    TfmCpuTileProjectionsOptions tiling;
    // A fused epilogue's task tiles live on the stack of the OpenMP body
    // that runs the task, which frees them after each task (an alloca
    // scope); a plain loop would grow the stack with every iteration.
    tiling.fuseEpilogues = options.fuseEpilogues && options.parallel;
    tiling.kquantGemvPanels = options.kquantGemvPanels;
    pm.addNestedPass<func::FuncOp>(createTfmCpuTileProjections(tiling));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (options.vectorizeElementwise) {
    pm.addNestedPass<func::FuncOp>(createTfmCpuVectorizeElementwise());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
}

/// A small, statically shaped buffer allocated inside a parallel loop's
/// body.
static bool isTaskTileBuffer(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  Operation *alloc = buffer.getDefiningOp();
  if (!type || !alloc || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat() ||
      !alloc->getParentOfType<scf::ForallOp>())
    return false;
  int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  return bytes <= kMaxTaskTileBytes;
}

void mlir::tfm::buildCpuToLLVMPipeline(OpPassManager &pm,
                                       const CpuCodegenOptions &options) {
  // erf (the exact GELU) has no LLVM lowering: always approximated.
  TfmApproximateMathOptions approximations;
  approximations.expTanh = options.approximateMath;
  pm.addPass(createTfmApproximateMath(approximations));
  pm.addNestedPass<func::FuncOp>(createTfmSplitSharedFills());
  addEntryBufferizationPasses(pm);
  pm.addPass(createCanonicalizerPass());
  // A task's own tiles (the projection tiles of a fused epilogue) would
  // otherwise be heap buffers allocated on every iteration; the memory plan
  // covers function-level buffers only.
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass(isTaskTileBuffer));
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // The dot product instructions the kernels' configurations ask for.
  pm.addNestedPass<func::FuncOp>(createTfmCpuNibblePairDot());
  pm.addNestedPass<func::FuncOp>(createTfmCpuByteQuadDot());
  pm.addNestedPass<func::FuncOp>(createTfmCpuBf16PairDot());
  pm.addPass(createTfmLowerStridedCopies());
  // The projection kernels' loops over output panels.
  pm.addPass(options.parallel ? createForallToParallelLoopPass()
                              : createForallToForLoopPass());

  // Parallel dimensions of every linalg op become one scf.parallel, which
  // OpenMP work-shares over the runtime's threads.
  pm.addPass(options.parallel ? createConvertLinalgToParallelLoopsPass()
                              : createConvertLinalgToLoopsPass());
  if (options.promoteAccumulators)
    pm.addPass(createTfmCpuPromoteAccumulators());
  // Before the memory plan, while every buffer is its own allocation.
  pm.addPass(createTfmSkipUnreadLogits());
  if (options.prefetchWeights)
    pm.addPass(createTfmCpuPrefetchWeightPanels());
  if (options.cachePrefetchDistance != 0)
    pm.addPass(createTfmCpuPrefetchCacheRows());
  // After accumulator promotion, which tells buffers apart by their
  // allocation: in the arena they are all views of one global.
  if (options.planMemory) {
    // Deallocations move from the end of the function to right after each
    // buffer's last use, so that the plan can reuse its bytes.
    pm.addNestedPass<func::FuncOp>(
        bufferization::createOptimizeAllocationLivenessPass());
  }
  // Always: the entries' signature (their scratch argument) is the ABI.
  TfmCpuPlanMemoryOptions plan;
  plan.placeBuffers = options.planMemory;
  pm.addPass(createTfmCpuPlanMemory(plan));
  // Calls of Halide kernels (tfm-halide-outline-kernels'), on the planned
  // buffers; nothing without them.
  pm.addPass(createTfmHalideLowerCalls());
  // On the planned buffers, which become the kernels' arguments; before
  // OpenMP, whose regions the kernels then hold.
  if (options.shareKernels) {
    pm.addPass(createTfmCpuOutlineKernels());
    pm.addPass(createTfmCpuDedupKernels());
  }
  if (options.parallel) {
    TfmCpuSerializeSmallParallelLoopsOptions small;
    small.minWork = options.minParallelWork;
    pm.addPass(createTfmCpuSerializeSmallParallelLoops(small));
    pm.addPass(createConvertSCFToOpenMPPass());
  }
  // Vector transfers of the micro-kernels become plain vector loads, stores
  // and broadcasts, one per accumulator row.
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Before scf-to-cf: OpenMP bodies sit in memref.alloca_scope regions, which
  // must still be single-block when they are lowered.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  // The micro-kernels' contractions reduce over one element: elementwise
  // FMAs on the accumulator vectors.
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::ParallelArith;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  // After func-to-llvm: this pass also converts function signatures, and
  // would give the entries memref descriptors instead of bare pointers.
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tfm::buildCpuCodegenPipeline(OpPassManager &pm,
                                        const CpuCodegenOptions &options) {
  buildCpuWeightLayoutPipeline(pm, options);
  buildCpuToLinalgPipeline(pm, options);
  buildCpuToLLVMPipeline(pm, options);
}
