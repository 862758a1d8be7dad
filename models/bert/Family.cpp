//===- Family.cpp - The BERT family: architecture and registration --------===//
//
// An encoder: word + position (+ segment 0) embeddings and their LayerNorm,
// post-LayerNorm blocks of bidirectional attention and a GELU MLP, and (in
// BertForMaskedLM) the masked-LM head. Read from Hugging Face directories
// (model_type bert) and llama.cpp's GGUF files (architecture bert, no
// masked-LM head); compiled to an `encode` entry (fill-mask, embeddings).
//
//===----------------------------------------------------------------------===//
#include "models/bert/Bert.h"

using namespace tfmc;

DecoderConfig tfmc::bert::architecture() {
  DecoderConfig config;
  config.kind = ModelKind::EncoderOnly;
  config.norm = NormKind::LayerNorm;
  config.normPlacement = NormPlacement::PostNorm;
  config.position = PositionKind::Learned;
  config.mlp = MlpKind::GeluErf;
  config.mlpBias = true;
  config.attention.qkvBias = true;
  config.attention.outputBias = true;
  config.embeddingLayerNorm = true;
  config.normEps = 1e-12f;
  config.maskedLmHead = true;
  return config;
}

namespace {

class BertFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "bert"; }
  llvm::StringRef huggingFaceModelType() const override { return "bert"; }
  llvm::StringRef ggufArchitecture() const override { return "bert"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    if (file.format == CheckpointFormat::Gguf)
      return bert::readGgufConfig(file);
    return bert::readHuggingFaceConfig(file);
  }
  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    if (file.format == CheckpointFormat::Gguf)
      return bert::mapGgufWeights(file, config);
    return bert::mapHuggingFaceWeights(file, config);
  }

  /// None: an encoder generates nothing, and the tokenizer.json's
  /// post-processor adds [CLS] and [SEP].
  SpecialTokens specialTokens() const override { return {}; }
  std::vector<Preset> presets() const override { return bert::presets(); }
  TokenizerSpec presetTokenizer() const override {
    return bert::presetTokenizer();
  }
};

} // namespace

/// The registry's entry point (models/CMakeLists.txt: folder name + Family).
const ModelFamily &tfmc::bertFamily() {
  static const BertFamily family;
  return family;
}
