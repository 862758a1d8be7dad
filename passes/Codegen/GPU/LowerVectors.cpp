//===- LowerVectors.cpp - Kernels' vector ops as NVVM takes them ----------===//
//
// convert-gpu-to-nvvm converts 1-D vector ops; the kernels' n-D transfers,
// gathers, broadcasts, steps and contractions are unrolled and lowered here
// first, as upstream convert-vector-to-llvm does on the host.
//
// LLVM assumes nothing about the address of a vector load but its element's
// alignment, and NVPTX then splits a 16-byte load into four 4-byte ones.
// The GPU configs only vectorise rows whose vectors are aligned to their
// size (KernelShapes.h: hasAlignedRows), and lane slices start at multiples
// of their size: the loads and stores say so here.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPULOWERVECTORS
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The alignment of a vector of `type`: its size, at most 16 bytes, a power
/// of two.
int64_t alignmentOf(VectorType type) {
  int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  int64_t alignment = 1;
  while (alignment * 2 <= std::min<int64_t>(bytes, 16))
    alignment *= 2;
  return alignment;
}

template <typename OpTy> void align(OpTy op, VectorType type) {
  if (op.getAlignment())
    return;
  op.setAlignmentAttr(IntegerAttr::get(IntegerType::get(op.getContext(), 64),
                                       alignmentOf(type)));
}

struct TfmGpuLowerVectors
    : mlir::tfm::impl::TfmGpuLowerVectorsBase<TfmGpuLowerVectors> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorToVectorCanonicalizationPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorGatherLoweringPatterns(patterns);
    vector::populateVectorStepLoweringPatterns(patterns);
    // A thread's GEMM tile: one FMA per accumulator element and step.
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
    // Masks as compares of a step with the bound (32-bit lanes).
    vector::populateVectorMaskMaterializationPatterns(
        patterns, /*force32BitVectorIndices=*/true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk([](Operation *op) {
      if (auto load = dyn_cast<vector::LoadOp>(op))
        align(load, load.getVectorType());
      else if (auto store = dyn_cast<vector::StoreOp>(op))
        align(store, store.getVectorType());
      else if (auto load = dyn_cast<vector::MaskedLoadOp>(op))
        align(load, load.getVectorType());
      else if (auto store = dyn_cast<vector::MaskedStoreOp>(op))
        align(store, store.getVectorType());
    });
  }
};

} // namespace
