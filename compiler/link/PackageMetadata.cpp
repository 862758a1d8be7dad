//===- PackageMetadata.cpp - What a package says besides the weights ------===//
#include "compiler/link/PackageMetadata.h"

#include "runtime/PackageKeys.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace tfmc;
namespace keys = tfm::rt::keys;

namespace {

/// Enough digits that the runtime reads back the value the file held.
std::string number(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.9g", value);
  return text;
}

} // namespace

tfm::rt::PackageMetadata tfmc::packageMetadata(const ModelSpec &spec) {
  tfm::rt::PackageMetadata metadata;
  metadata[keys::kTokenizerKind] = spec.tokenizer.kind;
  metadata[keys::kTokenizerData] = spec.tokenizer.blob;
  metadata[keys::kBosToken] = std::to_string(spec.tokenizer.bos);
  metadata[keys::kEosToken] = std::to_string(spec.tokenizer.eos);
  metadata[keys::kDescription] = spec.description;
  if (!spec.note.empty())
    metadata[keys::kNote] = spec.note;
  const GenerationSpec &generation = spec.generation;
  if (!generation.extraStopIds.empty())
    metadata[keys::kStopTokens] =
        llvm::join(llvm::map_range(generation.extraStopIds,
                                   [](int id) { return std::to_string(id); }),
                   ",");
  if (const std::optional<SamplingDefaults> &sampling = generation.sampling) {
    metadata[keys::kSample] = sampling->sample ? "1" : "0";
    if (sampling->temperature)
      metadata[keys::kTemperature] = number(*sampling->temperature);
    if (sampling->topK)
      metadata[keys::kTopK] = std::to_string(*sampling->topK);
    if (sampling->topP)
      metadata[keys::kTopP] = number(*sampling->topP);
    if (sampling->minP)
      metadata[keys::kMinP] = number(*sampling->minP);
    if (sampling->repetitionPenalty)
      metadata[keys::kRepetitionPenalty] = number(*sampling->repetitionPenalty);
  }
  if (spec.config.kind == ModelKind::EncoderOnly) {
    const EmbeddingSpec &embedding = spec.config.embedding;
    metadata[keys::kEmbeddingPooling] = embedding.pooling;
    metadata[keys::kEmbeddingNormalize] = embedding.normalize ? "1" : "0";
    if (!embedding.source.empty())
      metadata[keys::kEmbeddingSource] = embedding.source;
  }
  return metadata;
}
