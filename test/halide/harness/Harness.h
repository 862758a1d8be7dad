//===- Harness.h - Runs a generated kernel against a reference --*- C++ -*-===//
//
// The checks of test/halide: a test runs tfmc-halide-gen on a description,
// compiles Inputs/harness-main.cpp against the kernels' headers and
// libraries and the standalone runtime (Inputs/build-harness.py), and runs
// it. The harness reads the same description, fills each kernel's inputs
// from a seeded generator, calls it through its `_argv` entry point
// (matching arguments by name with its `_metadata`), and compares its
// outputs with a plain C++ reference in double, quantized weights taken at
// the values compiler/weights' dequantizers give. It links no Halide compiler
// and no LLVM: it also runs OpenCL kernels on pocl, whose LLVM 15 must not meet
// LLVM 14.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_TEST_HALIDE_HARNESS_HARNESS_H
#define TFMC_TEST_HALIDE_HARNESS_HARNESS_H

#include "HalideRuntime.h"

namespace tfmc::halide::harness {

/// A generated kernel's two entry points.
struct KernelEntry {
  int (*argv)(void **);
  const halide_filter_metadata_t *(*metadata)();
};

/// main() of a harness linked with `count` kernels: `argv` holds the
/// description and options (usage without arguments). Returns the exit
/// status: 0 when every check of every kernel run held.
int run(int argc, char **argv, const KernelEntry *kernels, int count);

} // namespace tfmc::halide::harness

#endif // TFMC_TEST_HALIDE_HARNESS_HARNESS_H
