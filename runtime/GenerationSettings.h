//===- GenerationSettings.h - How a package and flags say to generate -----===//
//
// A package records the model's generation defaults (compiler/link's
// package metadata, runtime/PackageKeys.h): the ids besides EOS that end a
// generation and a generation_config.json's sampling. The executable and the
// C library generate with them, each setting the user gives taking
// precedence, as transformers' generate() merges its arguments into the
// model's generation config.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_GENERATIONSETTINGS_H
#define TFMC_RUNTIME_GENERATIONSETTINGS_H

#include "runtime/Cli.h"
#include "runtime/Package.h"
#include "runtime/Sampler.h"

#include <string>
#include <vector>

namespace tfm::rt {

/// The model's defaults, read from its package.
struct ModelGeneration {
  /// Every id that ends a generation: EOS (when the model has one) first,
  /// then the package's `token.stop` ids.
  std::vector<int> stopIds;
  /// generation_config.json's sampling, else raw sampling at temperature 1
  /// (tfmc's default before a model had a say).
  SamplerOptions sampler;
  /// True when the model's files set the sampling.
  bool configured = false;
};

/// Reads `package`'s stop ids and sampling defaults; `eos` is its EOS id
/// (-1: none). False with "'NAME': why" in `error` when a record is
/// malformed or an id lies outside [0, vocab).
bool readModelGeneration(const Package &package, const std::string &name,
                         int eos, int vocab, ModelGeneration &generation,
                         std::string &error);

/// `model`'s sampling with every setting `options` gives (--temp, --top-k,
/// --top-p, --min-p, --repetition-penalty, --seed) in its place.
SamplerOptions mergeSampling(const SamplerOptions &model,
                             const CliOptions &options);

/// "greedy decoding", or "temperature 0.9, top-k 40, ..." with the
/// truncations and penalty that apply.
std::string describeSampling(const SamplerOptions &options);

/// True when `id` ends a generation.
bool isStopId(const ModelGeneration &generation, int id);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_GENERATIONSETTINGS_H
