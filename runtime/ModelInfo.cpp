//===- ModelInfo.cpp - What an executable's --info prints -----------------===//
#include "runtime/ModelInfo.h"

#include "runtime/CpuFeatures.h"
#include "runtime/GenerationSettings.h"
#include "runtime/JoinList.h"
#include "runtime/ModelABI.h"
#include "runtime/PackageCheck.h"
#include "runtime/PackageKeys.h"
#include "runtime/Tokenizer.h"

#include <cinttypes>
#include <cstdio>
#include <memory>

namespace tfm::rt {

namespace {

/// Reads a decimal integer that fills `text`.
bool parseCount(std::string_view text, uint64_t &value) {
  if (text.empty() || text.size() > 19)
    return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + uint64_t(c - '0');
  }
  return true;
}

/// Splits `text` at each `separator`.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return parts;
    text.remove_prefix(at + 1);
  }
}

/// A record as printed: its text, or a note for packages written before
/// tfmc recorded it.
std::string recorded(const Package &package, const char *key) {
  std::string_view value = package.get(key);
  return value.empty() ? "(not recorded)" : std::string(value);
}

const char *kindName() {
  switch (tfm_model.kind) {
  case TFM_KIND_DECODER:
    return "decoder";
  case TFM_KIND_ENCODER:
    return "encoder";
  case TFM_KIND_ENCODER_DECODER:
    return "encoder-decoder";
  default:
    return "unknown";
  }
}

void printKind() {
  if (tfm_model.kind == TFM_KIND_ENCODER)
    std::printf("kind: encoder (hidden %u, %s)\n", tfm_model.hidden_size,
                tfm_model.encode_logits ? "masked-LM head"
                                        : "no masked-LM head");
  else if (tfm_model.kind == TFM_KIND_ENCODER_DECODER)
    std::printf("kind: encoder-decoder (decoder start token %u)\n",
                tfm_model.decoder_start_token);
  else
    std::printf("kind: %s\n", kindName());
}

void printShapes(const Package &package) {
  if (tfm_model.kind == TFM_KIND_ENCODER_DECODER)
    std::printf("layers: %s encoder, %s decoder\n",
                recorded(package, keys::kLayers).c_str(),
                recorded(package, keys::kDecoderLayers).c_str());
  else
    std::printf("layers: %s\n", recorded(package, keys::kLayers).c_str());
  std::printf("hidden size: %s\n",
              recorded(package, keys::kHiddenSize).c_str());
  std::printf("heads: %s\n", recorded(package, keys::kHeads).c_str());
  std::printf("kv heads: %s\n", recorded(package, keys::kKVHeads).c_str());
  std::printf("head dim: %s\n", recorded(package, keys::kHeadDim).c_str());
  std::printf("ffn size: %s\n", recorded(package, keys::kFfnSize).c_str());
  if (!package.get(keys::kExperts).empty())
    std::printf("experts: %s (%s per token)\n",
                recorded(package, keys::kExperts).c_str(),
                recorded(package, keys::kExpertsPerToken).c_str());
  std::printf("vocab: %u\ncontext: %u\nprefill chunk: %u\n",
              tfm_model.vocab_size, tfm_model.context_length,
              tfm_model.prefill_chunk);
  // Encode buckets: the rows each encode entry computes.
  if (!package.get(keys::kEncodeRows).empty())
    std::printf("encode rows: %s\n",
                std::string(package.get(keys::kEncodeRows)).c_str());
}

/// The parameter count and what the weights blob holds; false after
/// printing an error when a record is malformed.
bool printWeights(const Package &package, const std::string &path) {
  uint64_t parameters = 0;
  std::string_view parameterText = package.get(keys::kParameters);
  if (parameterText.empty())
    std::printf("parameters: (not recorded)\n");
  else if (parseCount(parameterText, parameters))
    std::printf("parameters: %" PRIu64 " (%s)\n", parameters,
                humanCount(parameters).c_str());
  else {
    std::fprintf(stderr, "error: '%s': metadata '%s' is '%.*s', not a count\n",
                 path.c_str(), keys::kParameters, int(parameterText.size()),
                 parameterText.data());
    return false;
  }
  if (std::optional<uint64_t> seed = package.randomSeed())
    std::printf("weights: %" PRIu64 " bytes, random (seed %" PRIu64
                ", filled at load: tfmc compile --random-weights)\n",
                tfm_model.weights_bytes, *seed);
  else
    std::printf("weights: %" PRIu64 " bytes\n", tfm_model.weights_bytes);
  std::string_view typesText = package.get(keys::kWeightTypes);
  std::vector<WeightTypeTotal> totals;
  if (!parseWeightTypes(typesText, totals)) {
    std::fprintf(stderr,
                 "error: '%s': metadata '%s' is '%.*s', not "
                 "TYPE:TENSORS:BYTES entries\n",
                 path.c_str(), keys::kWeightTypes, int(typesText.size()),
                 typesText.data());
    return false;
  }
  std::vector<std::string> types;
  for (const WeightTypeTotal &total : totals)
    types.push_back(total.type + " (" + std::to_string(total.tensors) +
                    (total.tensors == 1 ? " tensor, " : " tensors, ") +
                    std::to_string(total.bytes) + " bytes)");
  std::printf("weight types: %s\n",
              types.empty() ? "(not recorded)" : joinList(types).c_str());
  // The checksum covers the bytes (--verify-weights recomputes it); the
  // layout hash only names, shapes and offsets (the code checks it).
  const std::string &checksum = package.recordedChecksum();
  std::printf("weights checksum: %s\n", package.randomSeed()
                                            ? "(none: random weights)"
                                        : checksum.empty() ? "(not recorded)"
                                                           : checksum.c_str());
  std::printf("weights layout hash: 0x%016" PRIx64 "\n",
              tfm_model.weights_hash);
  return true;
}

void printMachine(const Package &package) {
  double cacheMiB = double(tfm_model.cache_bytes) / (1024.0 * 1024.0);
  std::printf("kv cache: %" PRIu64 " bytes (%.2f MiB, %s)\n",
              tfm_model.cache_bytes, cacheMiB,
              tfm_model.cache_element_bytes == 2 ? "f16" : "f32");
  std::printf("abi version: %u\n", tfm_model.abi_version);
  std::printf("device: %s\n", tfm_model.device == TFM_DEVICE_HOST ? "host"
                              : tfm_model.device == TFM_DEVICE_CUDA
                                  ? "cuda"
                                  : "unknown");
  std::string_view arch = package.get(keys::kTargetCudaArch);
  if (!arch.empty()) {
    std::string_view cubins = package.get(keys::kTargetCudaCubins);
    // The driver compiles the PTX for any GPU of that arch or newer.
    std::printf("target gpu: %.*s (PTX%s%.*s)\n", int(arch.size()), arch.data(),
                cubins.empty() ? "" : "; cubins: ", int(cubins.size()),
                cubins.data());
  }
  std::string_view cpu = package.get(keys::kTargetCpu);
  if (cpu.empty())
    return;
  std::vector<std::string> missing =
      missingCpuFeatures(package.get(keys::kTargetFeatures));
  std::printf("target cpu: %.*s (%s)\n", int(cpu.size()), cpu.data(),
              missing.empty()
                  ? "this CPU runs it"
                  : ("this CPU lacks " + joinList(missing)).c_str());
  std::vector<std::string> features;
  for (std::string_view feature :
       split(package.get(keys::kTargetFeatures), ','))
    if (!feature.empty())
      features.emplace_back(feature.front() == '+' ? feature.substr(1)
                                                   : feature);
  std::printf("target features: %s\n",
              features.empty() ? "(none)" : joinList(features).c_str());
}

/// Special ids, stop ids and sampling or embedding defaults; false after
/// printing an error.
bool printTokens(const Package &package, const std::string &path) {
  std::string tokenizerKind(package.get(keys::kTokenizerKind));
  std::printf("tokenizer: %s\n",
              tokenizerKind.empty() ? "(none)" : tokenizerKind.c_str());
  int bos = -1, eos = -1, pad = -1;
  std::string error;
  if (!readPackageTokenId(package, keys::kBosToken, path, bos, error) ||
      !readPackageTokenId(package, keys::kEosToken, path, eos, error) ||
      !readPackageTokenId(package, keys::kPadToken, path, pad, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return false;
  }
  auto id = [](int value) {
    return value < 0 ? std::string("none") : std::to_string(value);
  };
  std::vector<std::string> special = {"bos " + id(bos), "eos " + id(eos),
                                      "pad " + id(pad)};
  if (tfm_model.kind == TFM_KIND_ENCODER_DECODER)
    special.push_back("decoder start " +
                      std::to_string(tfm_model.decoder_start_token));
  if (tfm_model.kind == TFM_KIND_ENCODER && !tokenizerKind.empty()) {
    // Fill-mask predicts at the tokenizer's [MASK] (runtime/Encode.cpp).
    std::unique_ptr<Tokenizer> tokenizer = loadTokenizer(
        tokenizerKind, package.get(keys::kTokenizerData), bos, eos, error);
    if (!tokenizer) {
      std::fprintf(stderr, "error: '%s': %s\n", path.c_str(), error.c_str());
      return false;
    }
    special.push_back("mask " + id(tokenizer->tokenId("[MASK]")));
  }
  std::printf("special ids: %s\n", joinList(special).c_str());
  if (tfm_model.kind == TFM_KIND_ENCODER) {
    std::string pooling(package.get(keys::kEmbeddingPooling));
    std::string source(package.get(keys::kEmbeddingSource));
    bool normalized = package.get(keys::kEmbeddingNormalize) == "1";
    std::printf("embedding: %s pooling%s (%s)\n",
                pooling.empty() ? "mean" : pooling.c_str(),
                normalized ? ", L2-normalised" : "",
                source.empty() ? "tfmc's default" : source.c_str());
    return true;
  }
  ModelGeneration generation;
  if (!readModelGeneration(package, path, eos, int(tfm_model.vocab_size),
                           generation, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return false;
  }
  std::vector<std::string> stops;
  for (int stop : generation.stopIds)
    stops.push_back(std::to_string(stop));
  std::printf("stop ids: %s\n",
              stops.empty() ? "(none)" : joinList(stops).c_str());
  std::printf(
      "sampling: %s (%s)\n", describeSampling(generation.sampler).c_str(),
      generation.configured ? "generation_config.json" : "tfmc's default");
  return true;
}

} // namespace

bool parseWeightTypes(std::string_view text,
                      std::vector<WeightTypeTotal> &totals) {
  totals.clear();
  if (text.empty())
    return true;
  for (std::string_view entry : split(text, ',')) {
    std::vector<std::string_view> fields = split(entry, ':');
    WeightTypeTotal total;
    if (fields.size() != 3 || fields[0].empty() ||
        !parseCount(fields[1], total.tensors) ||
        !parseCount(fields[2], total.bytes))
      return false;
    total.type = std::string(fields[0]);
    totals.push_back(std::move(total));
  }
  return true;
}

std::string humanCount(uint64_t count) {
  static const struct {
    double scale;
    const char *suffix;
  } kUnits[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
  for (const auto &unit : kUnits)
    if (double(count) >= unit.scale) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g %s", double(count) / unit.scale,
                    unit.suffix);
      return text;
    }
  return std::to_string(count);
}

int printModelInfo(const Package &package, const std::string &path,
                   int threads) {
  std::string description(package.get(keys::kDescription));
  std::printf("description: %s\n",
              description.empty() ? "(none)" : description.c_str());
  printKind();
  printShapes(package);
  if (!printWeights(package, path))
    return 1;
  printMachine(package);
  if (!printTokens(package, path))
    return 1;
  std::printf("threads: %d\npackage: %s\n", threads, path.c_str());
  return 0;
}

} // namespace tfm::rt
