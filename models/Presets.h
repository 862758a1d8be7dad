//===- Presets.h - Built-in models with seeded weights ----------*- C++ -*-===//
//
// Presets let tfmc produce a working executable with nothing but itself:
// `tfmc compile preset:llama-tiny -o m`. Each family lists its presets
// (models/<family>/); weights are pseudo-random from a fixed seed (the model
// generates gibberish, and says so); tokenizers are byte-level so any text
// can be encoded.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_PRESETS_H
#define TFMC_MODELS_PRESETS_H

#include "compiler/spec/ModelSpec.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tfmc {

/// Names accepted after `preset:`, the smallest model first.
std::vector<std::string> presetNames();

/// The preset `name` with weights drawn from `seed`.
llvm::Expected<ModelSpec> makePreset(const std::string &name, uint64_t seed);

/// Fills every weight `spec.config` needs with seeded random values: matrices
/// ~ U(-a, a) with a = 1/sqrt(fan_in), norm weights near 1, biases near 0.
void fillRandomWeights(ModelSpec &spec, uint64_t seed);

} // namespace tfmc

#endif // TFMC_MODELS_PRESETS_H
