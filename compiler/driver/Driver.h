//===- Driver.h - The stages of `tfmc compile` -------------------*- C++ -*-===//
#ifndef TFMC_COMPILER_DRIVER_DRIVER_H
#define TFMC_COMPILER_DRIVER_DRIVER_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tfmc {

/// Where `tfmc compile` stops. Every stage before `Executable` prints its
/// result (to -o, or stdout).
enum class Stage {
  Tfm,
  KVCache,
  Fused,
  Linalg,
  LLVM,
  LLVMIR,
  Asm,
  Obj,
  Executable
};

/// Parses a --compile-to value; nullopt for an unknown name.
std::optional<Stage> parseStage(llvm::StringRef name);

struct CompileOptions {
  std::string model;     ///< path, or "preset:NAME"
  std::string tokenizer; ///< overrides/provides the tokenizer file
  std::string output;    ///< -o; empty: stdout for IR stages
  Stage stage = Stage::Executable;
  int64_t contextLength = 0; ///< 0: the model's own
  int64_t prefillChunk = 32;
  uint64_t presetSeed = 42;
  std::string targetCpu; ///< empty: the host CPU
  bool parallel = true;  ///< multi-threaded kernels (OpenMP)
  bool fuseProjections = true;
  bool fuseAttention = true;
  bool approximateMath = true;
  bool packWeights = true;
  bool tileProjections = true;
  bool planMemory = true;
  bool fuseElementwise = true;
  bool promoteAccumulators = true;
  bool prefetchWeights = true;
  bool fuseEpilogues = true;
  bool vectorizeElementwise = true;
  int64_t streamPrefetchDistance = 16; ///< 0: decode GEMVs do not prefetch
  int64_t cachePrefetchDistance = 32;  ///< 0: attention does not prefetch
  int64_t minParallelWork = 32768; ///< smaller parallel loops stay serial
};

/// Runs the compilation; diagnostics go to stderr. Returns the exit code.
int runCompile(const CompileOptions &options);

} // namespace tfmc

#endif // TFMC_COMPILER_DRIVER_DRIVER_H
