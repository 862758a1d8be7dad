//===- Checks.h - Each kernel kind against its reference --------*- C++ -*-===//
#ifndef TFMC_TEST_HALIDE_HARNESS_CHECKS_H
#define TFMC_TEST_HALIDE_HARNESS_CHECKS_H

#include "test/halide/harness/Data.h"

#include <functional>

namespace tfmc::halide::harness {

struct Options {
  uint64_t seed = 1;
  /// The position of the first row; < 0: chosen by the check.
  int pos = -1;
  double tolerance = 1e-4;
  /// Projections: also read every weight through one-hot inputs and
  /// compare it bit for bit with its dequantized value.
  bool exactWeights = false;
  /// MoE routing: logits on a coarse grid, so that many are equal.
  bool ties = false;
};

/// Calls the kernel on `args` (exits on a failed call).
using Invoke = std::function<void(Arguments &args)>;

/// Fills the inputs of `kernel`, calls it, compares; prints a line per
/// output and returns whether all held.
bool check(const KernelDescription &kernel, const Options &options,
           const Invoke &invoke);

} // namespace tfmc::halide::harness

#endif // TFMC_TEST_HALIDE_HARNESS_CHECKS_H
