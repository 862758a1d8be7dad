//===- FuseAttention.cpp - Attention as one flash-attention kernel --------===//
#include "passes/Codegen/CPU/Passes.h"

#include "dialect/TfmOps.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUFUSEATTENTION
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct TfmCpuFuseAttention
    : mlir::tfm::impl::TfmCpuFuseAttentionBase<TfmCpuFuseAttention> {
  using TfmCpuFuseAttentionBase::TfmCpuFuseAttentionBase;

  void runOnOperation() override {
    if (blockKeys < 1) {
      getOperation()->emitError()
          << "tfm-cpu-fuse-attention: block-keys must be positive, got "
          << static_cast<int64_t>(blockKeys);
      return signalPassFailure();
    }
    SmallVector<AttentionOp> attentions;
    getOperation()->walk([&](AttentionOp op) { attentions.push_back(op); });
    for (AttentionOp op : attentions) {
      OpBuilder builder(op);
      auto fused = FlashAttentionOp::create(
          builder, op.getLoc(), op.getQuery(), op.getKey(), op.getValue(),
          op.getOffset(), op.getNumHeadsAttr(), op.getNumKvHeadsAttr(),
          op.getCausalAttr(), builder.getI64IntegerAttr(blockKeys));
      op.replaceAllUsesWith(fused.getResult());
      op.erase();
    }
  }
};

} // namespace
