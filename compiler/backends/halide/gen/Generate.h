//===- Generate.h - Descriptions -> objects, headers, statements -*- C++
//-*-===//
#ifndef TFMC_COMPILER_BACKENDS_HALIDE_GEN_GENERATE_H
#define TFMC_COMPILER_BACKENDS_HALIDE_GEN_GENERATE_H

#include "compiler/backends/halide/KernelDescription.h"

#include "Halide.h"

#include <optional>
#include <string>
#include <vector>

namespace tfmc::halide {

struct GenerateOptions {
  /// Where `<name>.a` / `.o`, `.h` and the other outputs go.
  std::string outputDir = ".";
  /// Objects (`.o`) instead of static libraries (`.a`).
  bool objects = false;
  /// Also `<name>.stmt`: the lowered Halide statements.
  bool stmt = false;
  /// Also `<name>.ptx` (CUDA) or `<name>.cl` (OpenCL): the device code.
  bool deviceSource = false;
  /// Where Debian keeps the autoscheduler plugins.
  std::string pluginDir = "/usr/lib/x86_64-linux-gnu/halide14";
};

/// The Halide target of `target`, spelled from its features (never
/// `host`), for pipelines built without a runtime of their own.
Halide::Target kernelTarget(const TargetDescription &target);

/// The target of the one runtime shared by `kernels`: the CPU features all
/// of them have (the runtime must run wherever they do) and every device
/// API any of them uses.
Halide::Target runtimeTarget(const std::vector<KernelDescription> &kernels);

/// Builds `kernel`'s pipeline, schedules it (by hand, or with the
/// autoscheduler it names) and writes its outputs. False and `error` on
/// failure (a Halide error's text included).
bool generateKernel(const KernelDescription &kernel,
                    const GenerateOptions &options, std::string &error);

/// Writes the standalone Halide runtime object for `kernels` to `path`.
bool generateRuntime(const std::vector<KernelDescription> &kernels,
                     const std::string &path, std::string &error);

} // namespace tfmc::halide

#endif // TFMC_COMPILER_BACKENDS_HALIDE_GEN_GENERATE_H
