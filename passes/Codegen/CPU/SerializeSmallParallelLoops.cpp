//===- SerializeSmallParallelLoops.cpp - Keep tiny loops off the team -----===//
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUSERIALIZESMALLPARALLELLOOPS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

constexpr int64_t kUnknownWork = std::numeric_limits<int64_t>::max() / 4;

std::optional<int64_t> constantTripCount(Value lower, Value upper, Value step) {
  auto lb = getConstantIntValue(lower), ub = getConstantIntValue(upper),
       st = getConstantIntValue(step);
  if (!lb || !ub || !st || *st <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*ub - *lb + *st - 1) / *st);
}

/// `a * b` for non-negative work counts, saturating at kUnknownWork (a
/// plain product of an unknown amount of work and a trip count overflows,
/// and a wrapped, negative count would make the largest loops look small).
int64_t multiplyWork(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > kUnknownWork / b ? kUnknownWork : a * b;
}

/// Elements of the vector results of `op`: a 16-lane FMA is 16 units of
/// work, a scalar op none beyond its loop iteration.
int64_t vectorLanes(Operation &op) {
  int64_t lanes = 0;
  for (Type type : op.getResultTypes())
    if (auto vector = dyn_cast<VectorType>(type))
      lanes += vector.getNumElements();
  return lanes;
}

/// Work of one run of `block`: one unit per iteration of its innermost
/// bodies, plus the vector lanes they compute (loops with unknown bounds
/// count as unbounded work).
int64_t blockWork(Block &block) {
  int64_t work = 1;
  for (Operation &op : block) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto trips = constantTripCount(loop.getLowerBound(), loop.getUpperBound(),
                                     loop.getStep());
      if (!trips)
        return kUnknownWork;
      work += multiplyWork(*trips, blockWork(*loop.getBody()));
    } else if (op.getNumRegions() > 0) {
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          work += blockWork(nested);
    } else {
      work += vectorLanes(op);
    }
    work = std::min(work, kUnknownWork);
  }
  return work;
}

int64_t parallelWork(scf::ParallelOp loop) {
  int64_t iterations = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto trips = constantTripCount(lb, ub, step);
    if (!trips)
      return kUnknownWork;
    iterations = multiplyWork(iterations, *trips);
  }
  return multiplyWork(iterations, blockWork(*loop.getBody()));
}

/// Replaces `loop` (without reductions) by nested scf.for loops.
void serialize(scf::ParallelOp loop) {
  OpBuilder builder(loop);
  scf::buildLoopNest(
      builder, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
      loop.getStep(), [&](OpBuilder &b, Location, ValueRange ivs) {
        IRMapping mapping;
        mapping.map(loop.getInductionVars(), ivs);
        for (Operation &op : loop.getBody()->without_terminator())
          b.clone(op, mapping);
      });
  loop.erase();
}

struct TfmCpuSerializeSmallParallelLoops
    : mlir::tfm::impl::TfmCpuSerializeSmallParallelLoopsBase<
          TfmCpuSerializeSmallParallelLoops> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> serial;
    getOperation()->walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
      if (loop.getNumReductions() == 0 && parallelWork(loop) < minWork)
        serial.push_back(loop);
      // Parallel loops nested in this one (a linalg op whose reduction
      // dimension sits between parallel ones) already run on the outer
      // loop's threads: forking again per outer iteration only costs time.
      loop.getBody()->walk([&](scf::ParallelOp nested) {
        if (nested.getNumReductions() == 0)
          serial.push_back(nested);
      });
      return WalkResult::skip();
    });
    // Innermost first, so that serialising an outer loop clones bodies that
    // are already sequential.
    for (scf::ParallelOp loop : llvm::reverse(serial))
      serialize(loop);
  }
};

} // namespace
