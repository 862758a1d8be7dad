//===- PromoteAccumulators.cpp - Reduction accumulators into iter_args ----===//
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUPROMOTEACCUMULATORS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// The buffer a memref value views: an allocation or a block argument.
Value rootBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// An element `memref[indices]` updated in place by a loop body.
struct Accumulator {
  memref::StoreOp store;
  SmallVector<memref::LoadOp> loads;
};

bool sameIndices(ValueRange a, ValueRange b) {
  return a.size() == b.size() && llvm::equal(a, b);
}

/// Finds a promotable accumulator in `loop`'s body: one store with
/// loop-invariant indices, preceded by loads of exactly that element, and no
/// other access that may reach the same buffer.
std::optional<Accumulator> findAccumulator(scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto store : body->getOps<memref::StoreOp>()) {
    ValueRange indices = store.getIndices();
    if (!llvm::all_of(
            indices,
            [&](Value index) { return loop.isDefinedOutsideOfLoop(index); }) ||
        !loop.isDefinedOutsideOfLoop(store.getMemRef()))
      continue;
    Value root = rootBuffer(store.getMemRef());
    Accumulator accumulator{store, {}};
    bool promotable = true;
    bool afterStore = false;
    loop.getBody()->walk([&](Operation *op) {
      if (op == store.getOperation()) {
        afterStore = true;
        return;
      }
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        if (rootBuffer(load.getMemRef()) != root)
          return;
        if (load.getMemRef() == store.getMemRef() &&
            sameIndices(load.getIndices(), indices) && !afterStore &&
            load->getBlock() == body) {
          accumulator.loads.push_back(load);
          return;
        }
        promotable = false;
        return;
      }
      if (auto other = dyn_cast<memref::StoreOp>(op)) {
        if (rootBuffer(other.getMemRef()) == root)
          promotable = false;
        return;
      }
      if (isMemoryEffectFree(op) || isa<scf::YieldOp>(op))
        return;
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffects(instances);
        for (auto &effect : instances)
          if (!effect.getValue() || rootBuffer(effect.getValue()) == root)
            promotable = false;
        return;
      }
      if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        promotable = false;
    });
    if (promotable && !accumulator.loads.empty())
      return accumulator;
  }
  return std::nullopt;
}

/// Rewrites `loop` to carry the accumulator; returns the new loop.
scf::ForOp promote(RewriterBase &rewriter, scf::ForOp loop,
                   const Accumulator &accumulator) {
  memref::StoreOp store = accumulator.store;
  Location loc = store.getLoc();
  rewriter.setInsertionPoint(loop);
  Value initial = memref::LoadOp::create(rewriter, loc, store.getMemRef(),
                                         store.getIndices());
  Value stored = store.getValueToStore();
  auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      rewriter, ValueRange{initial}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{stored};
      }));
  Value carried = newLoop.getRegionIterArgs().back();
  for (memref::LoadOp load : accumulator.loads)
    rewriter.replaceOp(load, carried);
  rewriter.setInsertionPointAfter(newLoop);
  memref::StoreOp::create(rewriter, loc, newLoop.getResults().back(),
                          store.getMemRef(), store.getIndices());
  rewriter.eraseOp(store);
  return newLoop;
}

struct TfmCpuPromoteAccumulators
    : mlir::tfm::impl::TfmCpuPromoteAccumulatorsBase<
          TfmCpuPromoteAccumulators> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    // Post-order: inner loops first, so an accumulator promoted out of an
    // inner loop can be promoted again out of the enclosing one.
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      while (std::optional<Accumulator> accumulator = findAccumulator(loop))
        loop = promote(rewriter, loop, *accumulator);
    }
  }
};

} // namespace
