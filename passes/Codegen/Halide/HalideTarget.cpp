//===- HalideTarget.cpp - #tfm.target as Halide's target ------------------===//
#include "passes/Codegen/Halide/HalideTarget.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tfm;

std::optional<tfmc::halide::TargetDescription>
mlir::tfm::halide::describeHalideTarget(TargetAttr target, std::string &error) {
  tfmc::halide::TargetDescription description;
  if (CpuTargetAttr cpu = getCpuTarget(target)) {
    llvm::StringSet<> enabled;
    llvm::SmallVector<llvm::StringRef> features;
    cpu.getFeatures().split(features, ',', -1, false);
    for (llvm::StringRef feature : features)
      if (feature.consume_front("+"))
        enabled.insert(feature);
    auto has = [&](std::initializer_list<const char *> names) {
      return std::all_of(names.begin(), names.end(),
                         [&](const char *name) { return enabled.count(name); });
    };
    static const std::pair<const char *, const char *> plain[] = {
        {"sse4.1", "sse41"},
        {"avx", "avx"},
        {"avx2", "avx2"},
        {"fma", "fma"},
        {"f16c", "f16c"}};
    for (auto [llvmName, halideName] : plain)
      if (enabled.count(llvmName))
        description.features.push_back(halideName);
    // Halide's AVX-512 levels, each the one before plus its extensions.
    if (has({"avx512f", "avx512cd"})) {
      description.features.push_back("avx512");
      if (has({"avx512vl", "avx512bw", "avx512dq"})) {
        description.features.push_back("avx512_skylake");
        if (has({"avx512ifma", "avx512vbmi"}))
          description.features.push_back("avx512_cannonlake");
      }
    }
    return description;
  }
  if (CudaTargetAttr cuda = getCudaTarget(target)) {
    int64_t capability = 0;
    llvm::StringRef arch = cuda.getArch();
    if (!arch.consume_front("sm_") || arch.getAsInteger(10, capability)) {
      error = "cannot read the CUDA arch '" + cuda.getArch().str() + "'";
      return std::nullopt;
    }
    description.device = tfmc::halide::Device::Cuda;
    description.cudaCapability = std::min<int64_t>(capability, 86);
    description.features = {"sse41", "avx", "avx2", "fma", "f16c"};
    return description;
  }
  error = "the module has no cpu or cuda #tfm.target";
  return std::nullopt;
}
