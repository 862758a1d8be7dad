//===- Attention.cpp - tfm.attention to tfm.attention_kernel --------------===//
//
// Attention leaves the network level as one destination-style kernel op
// that every target schedules its own way (the CPU tiles it into flash
// attention, a target without a kernel of its own decomposes it into
// linalg ops): the conversion itself chooses no algorithm, and carries over
// what a target chose beforehand (the attention's discardable attributes).
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

class AttentionToKernel : public OpRewritePattern<AttentionOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &b) const override {
    Value init = emptyTensor(b, op.getLoc(), shapeOf(op.getQuery()));
    auto kernel = b.replaceOpWithNewOp<AttentionKernelOp>(
        op, op.getType(), op.getQuery(), op.getKey(), op.getValue(),
        op.getOffset(), op.getSlopes(), op.getRelativeBias(), init,
        op.getNumHeadsAttr(), op.getNumKvHeadsAttr(), op.getMaskAttr(),
        op.getWindowAttr(), op.getRingAttr(), op.getMaxDistanceAttr(),
        op.getScaleAttr(), op.getSoftcapAttr());
    // What a target noted on the attention (its kernel configuration) is
    // about the kernel that computes it.
    kernel->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    return success();
  }
};

} // namespace

void mlir::tfm::populateTfmAttentionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<AttentionToKernel>(patterns.getContext());
}
