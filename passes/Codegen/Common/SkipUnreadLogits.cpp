//===- SkipUnreadLogits.cpp - No logits for prefill chunks nobody reads ---===//
//
// A prompt longer than one prefill chunk runs several prefill calls, and
// generation reads the logits of the last one only. Everything a prefill
// entry does after its last use of the KV cache (the last layer's output
// projection and FFN, the final norm, the vocabulary projection and the
// copy into the logits buffer) serves the logits alone; on a small model
// the vocabulary projection is its largest matrix. This pass guards that
// tail with `count != 0`, where `count` is the argument tfm-kv-cache marks
// `#tfm.entry_arg<count>`, so that a call with count 0 fills the cache only.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmContracts.h"
#include "passes/Codegen/Common/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMSKIPUNREADLOGITS
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// `root` and every memref that may alias it: conservatively, every
/// memref result of an op that takes one of them (views, casts, ...).
llvm::SmallPtrSet<Value, 16> aliasesOf(Value root) {
  llvm::SmallPtrSet<Value, 16> aliases = {root};
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers())
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) &&
            aliases.insert(result).second)
          worklist.push_back(result);
  }
  return aliases;
}

/// Whether `op` or an op nested in it uses one of `values`.
bool usesAny(Operation *op, const llvm::SmallPtrSet<Value, 16> &values) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (values.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

bool allocatesOrFrees(Operation &op) {
  return isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op);
}

/// Moves the logits tail of `func` (what follows its last use of the
/// cache) into `scf.if %count != 0`. Guarded: every operation with side
/// effects except allocations and deallocations (the memory plan wants
/// allocations at the top level, and a skipped call must still free what
/// it allocated), and every operation that uses a guarded result. The
/// others (effect-free ones and allocations) move before the guard if they
/// came after its first operation.
LogicalResult guardLogits(func::FuncOp func, unsigned countIndex,
                          unsigned cacheIndex) {
  Block &body = func.getBody().front();
  llvm::SmallPtrSet<Value, 16> cacheViews =
      aliasesOf(func.getArgument(cacheIndex));
  Operation *lastCacheUse = nullptr;
  for (Operation &op : body.without_terminator())
    if (usesAny(&op, cacheViews))
      lastCacheUse = &op;
  auto tail = lastCacheUse
                  ? llvm::make_range(std::next(lastCacheUse->getIterator()),
                                     body.without_terminator().end())
                  : body.without_terminator();

  llvm::SetVector<Operation *> guarded;
  SmallVector<Operation *> hoisted;
  for (Operation &op : tail) {
    bool usesGuarded = llvm::any_of(op.getOperands(), [&](Value operand) {
      Operation *producer = operand.getDefiningOp();
      return producer && guarded.contains(producer);
    });
    if (!allocatesOrFrees(op) && (usesGuarded || !isMemoryEffectFree(&op)))
      guarded.insert(&op);
    else if (!guarded.empty() && !isa<memref::DeallocOp>(op))
      hoisted.push_back(&op);
  }
  // count 0 must not reach the logits (their row, count - 1, would be out
  // of bounds): a function whose last cache use ends it cannot honour it.
  if (guarded.empty())
    return func.emitError("computes nothing after its last use of the ")
           << "kv_cache argument: count 0 cannot skip the logits";
  for (Operation *op : guarded)
    for (Operation *user : op->getUsers())
      if (!guarded.contains(user))
        return user->emitOpError("uses a result of the logits computation, "
                                 "which tfm-skip-unread-logits must guard");

  Operation *first = guarded.front();
  for (Operation *op : hoisted)
    op->moveBefore(first);
  OpBuilder builder(first);
  Location loc = first->getLoc();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value wanted = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                       func.getArgument(countIndex), zero);
  auto guard = scf::IfOp::create(builder, loc, wanted, /*withElse=*/false);
  Operation *yield = guard.thenBlock()->getTerminator();
  for (Operation *op : guarded)
    op->moveBefore(yield);
  return success();
}

struct TfmSkipUnreadLogits
    : mlir::tfm::impl::TfmSkipUnreadLogitsBase<TfmSkipUnreadLogits> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      auto function = cast<FunctionOpInterface>(func.getOperation());
      std::optional<unsigned> count =
          tfm::findEntryArg(function, tfm::EntryArg::count);
      std::optional<unsigned> cache =
          tfm::findEntryArg(function, tfm::EntryArg::kv_cache);
      if (!count)
        continue;
      if (!cache) {
        func.emitError("marks a count argument but no kv_cache argument");
        return signalPassFailure();
      }
      if (func.isExternal() || !func.getBody().hasOneBlock()) {
        func.emitError("must have a single-block body to guard its logits");
        return signalPassFailure();
      }
      if (failed(guardLogits(func, *count, *cache)))
        return signalPassFailure();
    }
  }
};

} // namespace
