//===- GenerationSettings.cpp - How a package and flags say to generate ---===//
#include "runtime/GenerationSettings.h"

#include "runtime/PackageKeys.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tfm::rt {

namespace {

/// The number under `key`, when present; false with a message when it is
/// not a finite number.
bool readNumber(const Package &package, const char *key,
                const std::string &name, float &value, bool &present,
                std::string &error) {
  std::string text(package.get(key));
  present = !text.empty();
  if (!present)
    return true;
  errno = 0;
  char *end = nullptr;
  value = std::strtof(text.c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(value)) {
    error = "'" + name + "': metadata '" + key + "' is not a number: '" + text +
            "'";
    return false;
  }
  return true;
}

bool readStopIds(const Package &package, const std::string &name, int vocab,
                 std::vector<int> &ids, std::string &error) {
  std::string text(package.get(keys::kStopTokens));
  size_t start = 0;
  while (!text.empty()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    errno = 0;
    char *end = nullptr;
    long long id = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno == ERANGE || id < 0 ||
        id >= vocab) {
      error = "'" + name + "': metadata '" + keys::kStopTokens + "' holds '" +
              item + "', not an id of the model's vocabulary";
      return false;
    }
    if (std::find(ids.begin(), ids.end(), int(id)) == ids.end())
      ids.push_back(static_cast<int>(id));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return true;
}

} // namespace

bool readModelGeneration(const Package &package, const std::string &name,
                         int eos, int vocab, ModelGeneration &generation,
                         std::string &error) {
  generation = ModelGeneration();
  if (eos >= 0)
    generation.stopIds.push_back(eos);
  if (!readStopIds(package, name, vocab, generation.stopIds, error))
    return false;
  std::string_view sample = package.get(keys::kSample);
  if (sample.empty())
    return true;
  generation.configured = true;
  SamplerOptions &sampler = generation.sampler;
  // transformers decodes greedily unless the config samples; then only the
  // fields it sets differ from transformers' defaults (temperature 1,
  // top-k 50, top-p 1).
  if (sample != "1") {
    sampler.temperature = 0.0f;
  } else {
    sampler.topK = 50;
  }
  float value = 0;
  bool present = false;
  if (!readNumber(package, keys::kTemperature, name, value, present, error))
    return false;
  if (present && sample == "1")
    sampler.temperature = value;
  if (!readNumber(package, keys::kTopK, name, value, present, error))
    return false;
  if (present)
    sampler.topK = static_cast<int>(value);
  if (!readNumber(package, keys::kTopP, name, value, present, error))
    return false;
  if (present)
    sampler.topP = value;
  if (!readNumber(package, keys::kMinP, name, value, present, error))
    return false;
  if (present)
    sampler.minP = value;
  if (!readNumber(package, keys::kRepetitionPenalty, name, value, present,
                  error))
    return false;
  if (present)
    sampler.repetitionPenalty = value;
  bool valid = sampler.temperature >= 0.0f && sampler.topK >= 0 &&
               sampler.topP > 0.0f && sampler.topP <= 1.0f &&
               sampler.minP >= 0.0f && sampler.minP <= 1.0f &&
               sampler.repetitionPenalty > 0.0f;
  if (!valid) {
    error = "'" + name + "': the package's sampling defaults are out of range";
    return false;
  }
  return true;
}

SamplerOptions mergeSampling(const SamplerOptions &model,
                             const CliOptions &options) {
  SamplerOptions merged = model;
  if (options.temperatureGiven)
    merged.temperature = options.temperature;
  if (options.topKGiven)
    merged.topK = options.topK;
  if (options.topPGiven)
    merged.topP = options.topP;
  if (options.minPGiven)
    merged.minP = options.minP;
  if (options.repetitionPenaltyGiven)
    merged.repetitionPenalty = options.repetitionPenalty;
  merged.seed = options.seed;
  return merged;
}

std::string describeSampling(const SamplerOptions &s) {
  auto number = [](float value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return std::string(text);
  };
  std::string what = s.temperature > 0.0f
                         ? "temperature " + number(s.temperature)
                         : "greedy decoding";
  if (s.temperature > 0.0f && s.topK > 0)
    what += ", top-k " + std::to_string(s.topK);
  if (s.temperature > 0.0f && s.topP < 1.0f)
    what += ", top-p " + number(s.topP);
  if (s.temperature > 0.0f && s.minP > 0.0f)
    what += ", min-p " + number(s.minP);
  if (s.repetitionPenalty != 1.0f)
    what += ", repetition penalty " + number(s.repetitionPenalty);
  return what;
}

bool isStopId(const ModelGeneration &generation, int id) {
  return std::find(generation.stopIds.begin(), generation.stopIds.end(), id) !=
         generation.stopIds.end();
}

} // namespace tfm::rt
