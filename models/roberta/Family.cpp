//===- Family.cpp - The RoBERTa family ------------------------------------===//
//
// BERT's encoder (models/bert/Bert.h) under RobertaConfig's keys and
// RobertaModel's tensor names ("roberta." in RobertaForMaskedLM), with
// positions counted from padding_idx + 1: transformers gives the first
// token the position id pad_token_id + 1 (2), so the table's first rows are
// not used and max_position_embeddings (514) leaves 512 positions. The
// masked-LM head is `lm_head` (dense, GELU, layer_norm, the tied decoder
// plus `lm_head.bias`). Hugging Face directories, model_type roberta.
//
//===----------------------------------------------------------------------===//
#include "models/TensorMap.h"
#include "models/bert/Bert.h"

using namespace tfmc;

namespace {

/// RobertaForMaskedLM's head bias, the sign of its masked-LM head.
constexpr const char *kMlmBias = "lm_head.bias";

/// The rows of the position table before position 0: padding_idx + 1.
llvm::Expected<int64_t> positionOffset(const ConfigSource &config) {
  auto pad = config.nonNegative("pad_token_id", 1);
  if (!pad)
    return pad.takeError();
  return *pad + 1;
}

class RobertaFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "roberta"; }
  llvm::StringRef huggingFaceModelType() const override { return "roberta"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    const ConfigSource &config = file.config;
    DecoderConfig c = bert::architecture();
    if (auto err = bert::readHuggingFaceEncoder(config, c))
      return std::move(err);
    auto offset = positionOffset(config);
    if (!offset)
      return offset.takeError();
    if (c.contextLength <= *offset)
      return llvm::createStringError(
          "max_position_embeddings " + llvm::Twine(c.contextLength) + " in " +
          config.describe() + " leaves no position after padding_idx + 1 = " +
          llvm::Twine(*offset));
    c.contextLength -= *offset;
    c.maskedLmHead = file.tensors.contains(kMlmBias);
    return c;
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    using R = WeightRole;
    TensorTable &table = file.tensors;
    auto offset = positionOffset(file.config);
    if (!offset)
      return offset.takeError();
    std::string prefix =
        table.contains("roberta.embeddings.word_embeddings.weight") ? "roberta."
                                                                    : "";
    WeightMap weights;
    if (auto err =
            bert::mapHuggingFaceEncoder(file, config, prefix, *offset, weights))
      return std::move(err);
    if (!config.maskedLmHead)
      return std::move(weights);
    if (auto err =
            takeWeights(table, config,
                        {{"lm_head.dense.weight", {R::MlmDense}},
                         {"lm_head.dense.bias", {R::MlmDenseBias}},
                         {"lm_head.layer_norm.weight", {R::MlmNormWeight}},
                         {"lm_head.layer_norm.bias", {R::MlmNormBias}},
                         {kMlmBias, {R::MlmBias}}},
                        -1, weights))
      return std::move(err);
    // The decoder is tied to the word embeddings and its bias is
    // lm_head.bias; stored copies add nothing.
    ignoreTensors(table, {"lm_head.decoder.weight", "lm_head.decoder.bias"},
                  -1);
    return std::move(weights);
  }

  /// None: an encoder generates nothing, and the tokenizer.json's
  /// post-processor adds <s> and </s>.
  SpecialTokens specialTokens() const override { return {}; }
  std::vector<Preset> presets() const override { return {}; }
  TokenizerSpec presetTokenizer() const override {
    return bert::presetTokenizer();
  }
};

} // namespace

const ModelFamily &tfmc::robertaFamily() {
  static const RobertaFamily family;
  return family;
}
