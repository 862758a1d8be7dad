//===- Driver.h - The stages of `tfmc compile` ------------------*- C++ -*-===//
#ifndef TFMC_COMPILER_DRIVER_DRIVER_H
#define TFMC_COMPILER_DRIVER_DRIVER_H

#include "compiler/backends/TargetBackend.h"
#include "passes/Pipelines.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfmc {

/// What `tfmc compile` reads and writes; the phases' own options live in
/// their option structs (TfmTransformOptions, the backend's groups).
struct DriverOptions {
  std::string model; ///< path, or "preset:NAME"
  /// With a .mlir `model`: the model (path or preset) whose weights,
  /// tokenizer and configuration the IR uses.
  std::string weightsFrom;
  std::string tokenizer; ///< overrides/provides the tokenizer file
  std::string output;    ///< -o; empty: stdout for IR stages
  std::string stopAfter; ///< --compile-to stage; empty: the executable
  bool library = false;  ///< --emit=lib: a static library and C header
  bool progress = false; ///< --progress: stage lines even off a terminal
  bool quiet = false;    ///< --quiet: no stage or progress lines at all
  uint64_t presetSeed = 42;
  /// --random-weights: the package stores no weights; the program fills
  /// them from presetSeed when it loads.
  bool randomWeights = false;
};

/// The target-independent stages, in order.
inline constexpr const char *kNetworkStages[] = {"tfm", "kv-cache", "fused"};

/// Every `--compile-to` stage: the target-independent ones, then the
/// backend's.
std::vector<std::string> stageNames(const TargetBackend &backend);

/// Runs the compilation; diagnostics go to stderr. Returns the exit code.
int runCompile(const DriverOptions &options,
               const mlir::tfm::TfmTransformOptions &transform,
               TargetBackend &backend);

} // namespace tfmc

#endif // TFMC_COMPILER_DRIVER_DRIVER_H
