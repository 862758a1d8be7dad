//===- Family.cpp - The T5 family: architecture and registration ----------===//
//
// An encoder-decoder (T5ForConditionalGeneration): the encoder reads the
// prompt with bidirectional attention, the decoder generates from
// decoder_start_token_id with causal self-attention and cross-attention to
// the encoder's output in every layer. Read from Hugging Face directories
// (model_type t5): v1.0 (ReLU feed-forward, tied head) and v1.1 / FLAN-T5
// (gated GELU, untied head).
//
//===----------------------------------------------------------------------===//
#include "models/t5/T5.h"

using namespace tfmc;

DecoderConfig tfmc::t5::architecture() {
  DecoderConfig config;
  config.kind = ModelKind::EncoderDecoder;
  config.norm = NormKind::RMSNorm;
  config.normPlacement = NormPlacement::PreNorm;
  config.position = PositionKind::RelativeBias;
  config.mlp = MlpKind::Relu;
  // T5 folds 1/sqrt(d_kv) into its query weights' initialisation.
  config.attention.scoreScale = 1.0f;
  config.normEps = 1e-6f;
  return config;
}

namespace {

class T5Family final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "t5"; }
  llvm::StringRef huggingFaceModelType() const override { return "t5"; }
  llvm::StringRef ggufArchitecture() const override { return "t5"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    if (file.format == CheckpointFormat::Gguf)
      return t5::readGgufConfig(file);
    return t5::readHuggingFaceConfig(file);
  }
  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    if (file.format == CheckpointFormat::Gguf)
      return t5::mapGgufWeights(file, config);
    return t5::mapHuggingFaceWeights(file, config);
  }

  /// No BOS; </s> (id 1) ends generation, and the tokenizer.json's
  /// post-processor appends it to the prompt.
  SpecialTokens specialTokens() const override { return {-1, 1}; }
  std::vector<Preset> presets() const override { return t5::presets(); }
  TokenizerSpec presetTokenizer() const override {
    return t5::presetTokenizer();
  }
};

} // namespace

/// The registry's entry point (models/CMakeLists.txt: folder name + Family).
const ModelFamily &tfmc::t5Family() {
  static const T5Family family;
  return family;
}
