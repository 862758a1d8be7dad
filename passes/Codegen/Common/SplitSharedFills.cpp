//===- SplitSharedFills.cpp - One fill per destination --------------------===//
//
// CSE merges identical `linalg.fill`s on tensors (every zero-initialised
// accumulator of a given shape), after which one-shot bufferization must copy
// the shared fill into a new buffer for every op that writes into it. Giving
// each user its own fill (of its own tensor.empty) lets every one of them
// bufferize in place: a fill instead of a fill plus a copy. Shared
// tensor.empty destinations are split the same way.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/Common/Passes.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMSPLITSHAREDFILLS
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct TfmSplitSharedFills
    : mlir::tfm::impl::TfmSplitSharedFillsBase<TfmSplitSharedFills> {
  /// CSE also merges the `tensor.empty`s that parallel loops write into
  /// (every decode projection of one width shares one): their results then
  /// all alias it, and one-shot bufferization's conflict analysis grows
  /// faster than the square of the layers. Each user gets its own, which
  /// says what the code means: no loop reads another's destination.
  void splitSharedEmpties(OpBuilder &builder) {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!empty->getResult(0).hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared) {
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          empty->getResult(0).getUses(), [](OpOperand &use) { return &use; });
      for (OpOperand *use : llvm::drop_begin(uses)) {
        builder.setInsertionPoint(use->getOwner());
        use->set(builder.clone(*empty)->getResult(0));
      }
    }
  }

  void runOnOperation() override {
    SmallVector<linalg::FillOp> shared;
    getOperation()->walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse())
        shared.push_back(fill);
    });
    OpBuilder builder(&getContext());
    splitSharedEmpties(builder);
    for (linalg::FillOp fill : shared) {
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          fill->getResult(0).getUses(), [](OpOperand &use) { return &use; });
      for (OpOperand *use : llvm::drop_begin(uses)) {
        builder.setInsertionPoint(use->getOwner());
        IRMapping mapping;
        Value destination = fill.getDpsInits()[0];
        if (auto empty = destination.getDefiningOp<tensor::EmptyOp>())
          mapping.map(destination, builder.clone(*empty)->getResult(0));
        use->set(builder.clone(*fill, mapping)->getResult(0));
      }
    }
  }
};

} // namespace
