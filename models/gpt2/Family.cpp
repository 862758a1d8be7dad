//===- Family.cpp - The GPT-2 family: architecture and registration -------===//
//
// Learned positions, pre-LayerNorm blocks with biased projections, GELU
// (tanh) MLP, final LayerNorm and the LM head tied to the token embedding.
// Read from Hugging Face directories (model_type gpt2).
//
//===----------------------------------------------------------------------===//
#include "models/gpt2/Gpt2.h"

using namespace tfmc;

DecoderConfig tfmc::gpt2::architecture() {
  DecoderConfig config;
  config.norm = NormKind::LayerNorm;
  config.normPlacement = NormPlacement::PreNorm;
  config.position = PositionKind::Learned;
  config.mlp = MlpKind::GeluTanh;
  config.mlpBias = true;
  config.attention.qkvBias = true;
  config.attention.outputBias = true;
  config.tiedEmbeddings = true;
  return config;
}

namespace {

class Gpt2Family final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "gpt2"; }
  llvm::StringRef huggingFaceModelType() const override { return "gpt2"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    return gpt2::readHuggingFaceConfig(file);
  }
  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    return gpt2::mapHuggingFaceWeights(file, config);
  }

  /// <|endoftext|> both begins and ends a text.
  SpecialTokens specialTokens() const override { return {50256, 50256}; }
  std::vector<Preset> presets() const override { return gpt2::presets(); }
  TokenizerSpec presetTokenizer() const override {
    return gpt2::presetTokenizer();
  }
};

} // namespace

/// The registry's entry point (models/CMakeLists.txt: folder name + Family).
const ModelFamily &tfmc::gpt2Family() {
  static const Gpt2Family family;
  return family;
}
