//===- RelativeBuckets.h - T5's relative position buckets -------*- C++ -*-===//
//
// T5 adds to each attention score a learned bias per head and per bucket of
// the distance between the key's and the query's positions. Transformers
// computes the bucket of a distance n >= exact as
// exact + int(log(n / exact) / log(max_distance / exact) * (side - exact))
// in float32, capped at side - 1. That is a step function of n, so it is
// computed here once at compile time as the distances where it steps, and
// the generated code counts the steps a distance has passed: integer
// compares that give transformers' buckets exactly, with no logarithm per
// (query, key) pair.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_DIALECT_RELATIVEBUCKETS_H
#define TFMC_DIALECT_RELATIVEBUCKETS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tfm {

/// The buckets of one stack's relative position bias.
struct RelativeBuckets {
  /// Bidirectional (an encoder): keys after the query have their own
  /// buckets, from `side` on. Causal: only keys at or before the query.
  bool bidirectional = false;
  /// Buckets per side (all of them when causal, half when bidirectional).
  int64_t side = 0;
  /// Distances below `exact` have one bucket each.
  int64_t exact = 0;
  /// Bucket exact + i (i >= 1) starts at distance steps[i - 1]; distances
  /// from steps.back() on share the last bucket, side - 1.
  llvm::SmallVector<int64_t> steps;

  /// The bucket of a key `relative` positions after the query (negative:
  /// before it), as transformers' `_relative_position_bucket`.
  int64_t bucketOf(int64_t relative) const;
};

/// Why `numBuckets` and `maxDistance` make no bucket layout (too few buckets
/// for an exact one, or a max_distance within the exact distances), or
/// nullopt when they do.
std::optional<std::string> checkRelativeBuckets(int64_t numBuckets,
                                                int64_t maxDistance,
                                                bool bidirectional);

/// The layout; `checkRelativeBuckets` must have accepted the arguments.
RelativeBuckets relativeBuckets(int64_t numBuckets, int64_t maxDistance,
                                bool bidirectional);

/// Emits the bucket (index) of `relative` (index: key position minus query
/// position, as a signed value) with integer compares and selects.
Value emitRelativeBucket(OpBuilder &b, Location loc, Value relative,
                         const RelativeBuckets &buckets);

} // namespace mlir::tfm

#endif // TFMC_DIALECT_RELATIVEBUCKETS_H
