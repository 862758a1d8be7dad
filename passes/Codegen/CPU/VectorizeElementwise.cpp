//===- VectorizeElementwise.cpp - Elementwise linalg ops in vector strips -===//
//
// The projections and attention have their own kernels; what is left between
// them (norm scaling, RoPE, embeddings, residual adds that no projection
// absorbed) are elementwise linalg.generic ops. Lowered to scalar loops, LLVM
// vectorises few of them: their operands are views of one arena, so a store
// may alias a per-row value the loop reads, which is then reloaded and
// recomputed (RMSNorm's `1 / sqrt(mean + eps)`) for every element. Here each
// such op is tiled into strips of its innermost dimension and every strip
// vectorised, so the vector code no longer depends on alias analysis.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUVECTORIZEELEMENTWISE
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// n-D tensor.extract (an embedding lookup reads table[token, feature])
/// becomes a vector load or a gather.
constexpr bool kVectorizeGathers = true;

/// The whole innermost dimension when it has at most `maxStrip` elements,
/// else the widest multiple of `lanes` that is at most `maxStrip` and
/// divides it; 0 when there is none.
int64_t stripWidth(int64_t innermost, int64_t lanes, int64_t maxStrip) {
  if (innermost <= maxStrip)
    return innermost;
  for (int64_t width = maxStrip - maxStrip % lanes; width >= lanes;
       width -= lanes)
    if (innermost % width == 0)
      return width;
  return 0;
}

/// A statically shaped, all-parallel generic on tensors at the top level of
/// a function (the kernels that other passes built are loops already).
bool isStripCandidate(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && op.getNumLoops() > 0 &&
         op.getNumReductionLoops() == 0 && !op.hasDynamicShape() &&
         !op->getParentOfType<LoopLikeOpInterface>() &&
         succeeded(
             linalg::vectorizeOpPrecondition(op, {}, {}, kVectorizeGathers));
}

/// Tiles `op` into `scf.forall` strips of one element in every dimension but
/// the innermost, `width` there, and vectorises each strip.
LogicalResult vectorizeInStrips(RewriterBase &rewriter, linalg::GenericOp op,
                                int64_t width) {
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes.back() = width;
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), tiling);
  if (failed(tiled))
    return op.emitOpError("could not be tiled into vector strips");
  rewriter.replaceOp(op, tiled->replacements);
  Operation *strip = tiled->tiledOps.back();
  rewriter.setInsertionPoint(strip);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, strip, {}, {}, kVectorizeGathers);
  if (failed(vectorized))
    return strip->emitOpError("strip could not be vectorised");
  rewriter.replaceOp(strip, vectorized->replacements);
  return success();
}

struct TfmCpuVectorizeElementwise
    : mlir::tfm::impl::TfmCpuVectorizeElementwiseBase<
          TfmCpuVectorizeElementwise> {
  using Base::Base;

  void runOnOperation() override {
    if (lanes < 1 || maxStrip < lanes) {
      getOperation()->emitError()
          << "tfm-cpu-vectorize-elementwise: lanes must be positive and "
             "max-strip at least lanes";
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, int64_t>> strips;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!isStripCandidate(op))
        return;
      int64_t innermost = op.getStaticLoopRanges().back();
      if (int64_t width = stripWidth(innermost, lanes, maxStrip))
        strips.push_back({op, width});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, width] : strips)
      if (failed(vectorizeInStrips(rewriter, op, width)))
        return signalPassFailure();
  }
};

} // namespace
