//===- Presets.cpp - Built-in models with seeded weights ------------------===//
#include "models/Presets.h"

#include "compiler/builders/DecoderSkeleton.h"
#include "models/Registry.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>

using namespace tfmc;

namespace {

/// splitmix64: tiny, seedable, identical on every platform.
class SplitMix {
public:
  explicit SplitMix(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1).
  float symmetric() { return float((next() >> 40) * 0x1.0p-24 * 2.0 - 1.0); }

private:
  uint64_t state;
};

struct FoundPreset {
  const ModelFamily *family;
  Preset preset;
  uint64_t parameters;
};

/// Every family's presets, the smallest model first.
std::vector<FoundPreset> allPresets() {
  std::vector<FoundPreset> found;
  for (const ModelFamily *family : modelFamilies())
    for (Preset &preset : family->presets()) {
      uint64_t parameters = 0;
      for (const auto &[name, shape] : decoderWeightShapes(preset.config))
        parameters += weights::numElements(shape);
      found.push_back({family, std::move(preset), parameters});
    }
  std::stable_sort(found.begin(), found.end(),
                   [](const FoundPreset &a, const FoundPreset &b) {
                     return a.parameters < b.parameters;
                   });
  return found;
}

} // namespace

std::vector<std::string> tfmc::presetNames() {
  std::vector<std::string> names;
  for (const FoundPreset &found : allPresets())
    names.push_back(found.preset.name);
  return names;
}

void tfmc::fillRandomWeights(ModelSpec &spec, uint64_t seed) {
  SplitMix random(seed);
  // In name order (std::map): the weights of a seed never change.
  for (const auto &[name, shape] : decoderWeightShapes(spec.config)) {
    std::vector<float> values(weights::numElements(shape));
    llvm::StringRef ref(name);
    bool isNorm = ref.contains("norm") && ref.ends_with(".weight");
    bool isVector = shape.size() == 1;
    float amplitude = isVector ? 0.1f : 1.0f / std::sqrt(float(shape.back()));
    for (float &value : values)
      value = (isNorm ? 1.0f : 0.0f) + amplitude * random.symmetric();
    spec.weights[name] =
        weights::Weight(weights::TensorView::fromF32(shape, std::move(values)));
  }
}

llvm::Expected<ModelSpec> tfmc::makePreset(const std::string &name,
                                           uint64_t seed) {
  std::vector<FoundPreset> presets = allPresets();
  auto found =
      std::find_if(presets.begin(), presets.end(),
                   [&](const FoundPreset &p) { return p.preset.name == name; });
  if (found == presets.end()) {
    std::string known;
    for (const FoundPreset &preset : presets)
      known += (known.empty() ? "" : ", ") + preset.preset.name;
    return llvm::createStringError("unknown preset '" + name +
                                   "' (known: " + known + ")");
  }
  ModelSpec spec;
  spec.family = found->family->name().str();
  spec.config = found->preset.config;
  spec.tokenizer = found->family->presetTokenizer();
  fillRandomWeights(spec, seed);
  spec.description = "preset " + name + " (seeded random weights, seed " +
                     std::to_string(seed) + ")";
  spec.note = "this is the built-in preset '" + name +
              "' with seeded random weights: its text is gibberish by design";
  return spec;
}
