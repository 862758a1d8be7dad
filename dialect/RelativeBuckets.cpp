//===- RelativeBuckets.cpp - T5's relative position buckets ---------------===//
#include "dialect/RelativeBuckets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct Sides {
  int64_t side, exact;
};

Sides sidesOf(int64_t numBuckets, bool bidirectional) {
  int64_t side = bidirectional ? numBuckets / 2 : numBuckets;
  return {side, side / 2};
}

/// Transformers' logarithmic part, `int(...)` of the float32 expression
/// (torch computes it on a float32 tensor, the Python double constants
/// rounded to float32), before the cap at side - 1.
int64_t logarithmicBucket(int64_t distance, int64_t exact, int64_t side,
                          int64_t maxDistance) {
  float logRange =
      static_cast<float>(std::log(double(maxDistance) / double(exact)));
  float ratio = static_cast<float>(distance) / static_cast<float>(exact);
  float scaled = std::log(ratio) / logRange * static_cast<float>(side - exact);
  return exact + static_cast<int64_t>(scaled);
}

} // namespace

std::optional<std::string> mlir::tfm::checkRelativeBuckets(int64_t numBuckets,
                                                           int64_t maxDistance,
                                                           bool bidirectional) {
  Sides sides = sidesOf(numBuckets, bidirectional);
  if (sides.exact < 1)
    return std::to_string(numBuckets) +
           (bidirectional ? " bidirectional" : " causal") +
           " buckets leave no bucket for exact distances (needs at least " +
           std::to_string(bidirectional ? 4 : 2) + ")";
  if (maxDistance <= sides.exact)
    return "max_distance (" + std::to_string(maxDistance) +
           ") must exceed the " + std::to_string(sides.exact) +
           " distances that have a bucket each";
  return std::nullopt;
}

RelativeBuckets mlir::tfm::relativeBuckets(int64_t numBuckets,
                                           int64_t maxDistance,
                                           bool bidirectional) {
  Sides sides = sidesOf(numBuckets, bidirectional);
  RelativeBuckets buckets;
  buckets.bidirectional = bidirectional;
  buckets.side = sides.side;
  buckets.exact = sides.exact;
  // Walk the distances until the last bucket is reached; the expression is
  // nondecreasing in the distance and reaches side - exact at max_distance
  // (give or take a rounding), so the walk ends near max_distance.
  int64_t reached = sides.exact;
  for (int64_t distance = sides.exact + 1; reached < sides.side - 1;
       ++distance) {
    int64_t bucket = std::min(
        logarithmicBucket(distance, sides.exact, sides.side, maxDistance),
        sides.side - 1);
    for (; reached < bucket; ++reached)
      buckets.steps.push_back(distance);
  }
  return buckets;
}

int64_t RelativeBuckets::bucketOf(int64_t relative) const {
  int64_t base = bidirectional && relative > 0 ? side : 0;
  int64_t distance =
      bidirectional ? std::abs(relative) : std::max<int64_t>(-relative, 0);
  int64_t bucket = base + std::min(distance, exact);
  for (int64_t step : steps)
    bucket += distance >= step ? 1 : 0;
  return bucket;
}

Value mlir::tfm::emitRelativeBucket(OpBuilder &b, Location loc, Value relative,
                                    const RelativeBuckets &buckets) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value zero = constant(0);
  Value before =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, relative, zero);
  Value negated = arith::SubIOp::create(b, loc, zero, relative);
  Value distance, bucket;
  if (buckets.bidirectional) {
    distance = arith::SelectOp::create(b, loc, before, negated, relative);
    Value after = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                        relative, zero);
    bucket =
        arith::SelectOp::create(b, loc, after, constant(buckets.side), zero);
  } else {
    distance = arith::SelectOp::create(b, loc, before, negated, zero);
    bucket = zero;
  }
  bucket = arith::AddIOp::create(
      b, loc, bucket,
      arith::MinUIOp::create(b, loc, distance, constant(buckets.exact)));
  Value one = constant(1);
  for (int64_t step : buckets.steps) {
    Value passed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         distance, constant(step));
    bucket = arith::AddIOp::create(
        b, loc, bucket, arith::SelectOp::create(b, loc, passed, one, zero));
  }
  return bucket;
}
