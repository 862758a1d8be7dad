//===- CodeGeneratorOptions.h - LLVM or Halide, per kernel kind -*- C++ -*-===//
//
// Inside a target, the code generator of each kernel: LLVM (the target's
// own pass pipeline) or Halide (tfmc-halide-gen, docs/halide.md).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_COMMON_CODEGENERATOROPTIONS_H
#define TFMC_COMPILER_BACKENDS_COMMON_CODEGENERATOROPTIONS_H

#include "passes/PipelineOptions.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tfmc {

struct CodeGeneratorOptions
    : public mlir::tfm::PhaseOptions<CodeGeneratorOptions> {
  Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc("Code generator of every kernel: llvm (default) or "
                     "halide (tfmc-halide-gen)"),
      llvm::cl::init("llvm")};
  Option<std::string> kernelBackend{
      *this, "kernel-backend",
      llvm::cl::desc("Code generator per kernel kind, over --backend: "
                     "KIND:llvm|halide,... with the kinds projection, "
                     "attention, norm, positional, elementwise, moe-routing, "
                     "lm-head, moe-experts"),
      llvm::cl::init("")};
  Option<std::string> halideAutoschedule{
      *this, "halide-autoschedule",
      llvm::cl::desc("Who schedules the Halide kernels: hand (default), "
                     "adams2019, mullapudi2016 or li2018"),
      llvm::cl::init("hand")};
};

/// The kernel kinds `options` give to Halide (none: every kernel is
/// LLVM's), checked before any model work: the backends and kinds named,
/// the schedule, and tfmc-halide-gen's presence when a kind is Halide's.
llvm::Expected<std::vector<std::string>>
halideKernelKinds(const CodeGeneratorOptions &options);

/// Adds tfm-halide-outline-kernels for `kinds` (nothing when there are
/// none): the first configuration pass, before the target chooses layouts
/// for the kernels left to it.
void addHalideOutlining(mlir::OpPassManager &pm,
                        const std::vector<std::string> &kinds,
                        const CodeGeneratorOptions &options);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_COMMON_CODEGENERATOROPTIONS_H
