//===- PackageMetadata.cpp - What a package says besides the weights ------===//
#include "compiler/link/PackageMetadata.h"

#include "runtime/PackageKeys.h"

#include "llvm/ADT/STLExtras.h"
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

/// The shapes --info shows and tfm_model_info lacks.
void addShapes(const DecoderConfig &config,
               tfm::rt::PackageMetadata &metadata) {
  metadata[keys::kLayers] = std::to_string(config.numLayers);
  if (config.kind == ModelKind::EncoderDecoder)
    metadata[keys::kDecoderLayers] = std::to_string(config.numDecoderLayers);
  metadata[keys::kHiddenSize] = std::to_string(config.dim);
  metadata[keys::kHeads] = std::to_string(config.attention.numHeads);
  metadata[keys::kKVHeads] = std::to_string(config.attention.numKVHeads);
  metadata[keys::kHeadDim] = std::to_string(config.attention.headDim);
  metadata[keys::kFfnSize] = std::to_string(config.hiddenDim);
  if (config.moe.experts > 0) {
    metadata[keys::kExperts] = std::to_string(config.moe.experts);
    metadata[keys::kExpertsPerToken] = std::to_string(config.moe.topK);
  }
}

/// The storage type a slot's bytes count under: a block-quantized matrix's
/// GGUF type (its quants and scales together, or its rows), the unpacked
/// k-quants' layout name, else the slot's element type.
std::string storageTypeName(const mlir::tfm::WeightSlot &slot) {
  if (slot.blockRows)
    return weights::elementTypeName(*slot.blockRows).str();
  if (slot.panels && weights::isBlockFormat(slot.panels->format)) {
    if (std::optional<weights::ElementType> type =
            weights::panelElementType(slot.panels->format))
      return weights::elementTypeName(*type).str();
    return weights::stringifyPanelFormat(slot.panels->format).str();
  }
  if (slot.elementType)
    return weights::elementTypeName(*slot.elementType).str();
  return "other";
}

} // namespace

uint64_t tfmc::parameterCount(const ModelSpec &spec) {
  uint64_t count = 0;
  for (const auto &[name, weight] : spec.weights) {
    uint64_t elements = 1;
    for (int64_t extent : weight.shape())
      elements *= static_cast<uint64_t>(extent);
    count += elements;
  }
  return count;
}

std::string tfmc::weightTypeSummary(const mlir::tfm::WeightLayout &layout) {
  struct Total {
    std::string type;
    uint64_t tensors = 0, bytes = 0;
  };
  std::vector<Total> totals;
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    std::string type = storageTypeName(slot);
    auto total = llvm::find_if(
        totals, [&](const Total &entry) { return entry.type == type; });
    if (total == totals.end())
      total = totals.insert(totals.end(), Total{type});
    // A block matrix's scales and minimums are parts of its quants' tensor.
    bool part = slot.panels && weights::isBlockFormat(slot.panels->format) &&
                slot.panels->part != weights::PanelPart::quants;
    total->tensors += part ? 0 : 1;
    total->bytes += slot.bytes;
  }
  return llvm::join(llvm::map_range(totals,
                                    [](const Total &total) {
                                      return total.type + ":" +
                                             std::to_string(total.tensors) +
                                             ":" + std::to_string(total.bytes);
                                    }),
                    ",");
}

tfm::rt::PackageMetadata
tfmc::packageMetadata(const ModelSpec &spec,
                      const mlir::tfm::WeightLayout &layout) {
  tfm::rt::PackageMetadata metadata;
  metadata[keys::kTokenizerKind] = spec.tokenizer.kind;
  metadata[keys::kTokenizerData] = spec.tokenizer.blob;
  metadata[keys::kBosToken] = std::to_string(spec.tokenizer.bos);
  metadata[keys::kEosToken] = std::to_string(spec.tokenizer.eos);
  // Only an id of the vocabulary: some configs name a padding id past it,
  // which nothing runs, and --info need not refuse the package for it.
  if (spec.tokenizer.pad >= 0 && spec.tokenizer.pad < spec.config.vocabSize)
    metadata[keys::kPadToken] = std::to_string(spec.tokenizer.pad);
  metadata[keys::kDescription] = spec.description;
  if (!spec.note.empty())
    metadata[keys::kNote] = spec.note;
  addShapes(spec.config, metadata);
  metadata[keys::kParameters] = std::to_string(parameterCount(spec));
  metadata[keys::kWeightTypes] = weightTypeSummary(layout);
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
