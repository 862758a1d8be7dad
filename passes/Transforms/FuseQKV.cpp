//===- FuseQKV.cpp - Q, K and V projections as one GEMM -------------------===//
//
// Q, K and V are found from the attention they feed, not by counting the
// linears that share an input: three linears of one input are not always an
// attention's projections (a gated MLP with a third branch), and an
// attention's projections may share their input with other linears (a
// block whose attention and MLP read one normalised input).
//
//===----------------------------------------------------------------------===//
#include "passes/Transforms/Passes.h"
#include "passes/Transforms/StackLinears.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMFUSEQKV
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The linears nearest to `value` upstream: the projections it is computed
/// from, looking through whatever lies between (RoPE, reshapes, the KV
/// cache's writes and reads) but not past a linear or an attention, whose
/// inputs belong to other projections.
llvm::SetVector<Operation *> nearestLinears(Value value) {
  llvm::SetVector<Operation *> linears;
  llvm::DenseSet<Operation *> visited;
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Operation *producer = worklist.pop_back_val().getDefiningOp();
    if (!producer || !visited.insert(producer).second)
      continue;
    if (isa<LinearOp>(producer)) {
      linears.insert(producer);
      continue;
    }
    if (isa<AttentionOp>(producer))
      continue;
    llvm::append_range(worklist, producer->getOperands());
  }
  return linears;
}

/// The query, key and value projections of `attention`, in block order,
/// when they are three linears of one input; empty otherwise (keys and
/// values from another sequence, as a cross-attention's are, or from the
/// cache alone).
SmallVector<LinearOp> projectionsOf(AttentionOp attention) {
  llvm::SetVector<Operation *> queries = nearestLinears(attention.getQuery());
  if (queries.size() != 1)
    return {};
  auto query = cast<LinearOp>(queries.front());
  SmallVector<LinearOp> group = {query};
  // Through a KV cache, keys and values each reach both projections of
  // their layer (the cache read follows both writes), and earlier layers'
  // projections; those of this layer are the ones reading the query's
  // input.
  llvm::SetVector<Operation *> keysAndValues =
      nearestLinears(attention.getKey());
  llvm::SetVector<Operation *> values = nearestLinears(attention.getValue());
  keysAndValues.insert(values.begin(), values.end());
  for (Operation *op : keysAndValues) {
    auto linear = cast<LinearOp>(op);
    if (linear != query && linear.getInput() == query.getInput())
      group.push_back(linear);
  }
  if (group.size() != 3)
    return {};
  llvm::sort(group,
             [](LinearOp a, LinearOp b) { return a->isBeforeInBlock(b); });
  return group;
}

struct TfmFuseQKV : mlir::tfm::impl::TfmFuseQKVBase<TfmFuseQKV> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      // Found first, stacked after: stacking replaces the linears that
      // later searches would look for.
      SmallVector<SmallVector<LinearOp>> groups;
      llvm::DenseSet<Operation *> taken;
      func.walk([&](AttentionOp attention) {
        SmallVector<LinearOp> group = projectionsOf(attention);
        if (group.empty() || llvm::any_of(group, [&](LinearOp linear) {
              return taken.contains(linear);
            }))
          return;
        for (LinearOp linear : group)
          taken.insert(linear);
        groups.push_back(std::move(group));
      });
      for (SmallVector<LinearOp> &group : groups)
        (void)stackLinears(module, group, "wqkv", "bqkv");
    }
    eraseUnreadWeights(module);
  }
};

} // namespace
