//===- Family.cpp - The LLaMA family: architecture and registration -------===//
//
// Pre-norm residual blocks: RMSNorm, rotary attention with grouped KV heads,
// SwiGLU feed-forward; final RMSNorm and a tied or separate LM head. Read
// from Hugging Face directories (model_type llama), GGUF (architecture
// llama) and llama2.c checkpoints.
//
//===----------------------------------------------------------------------===//
#include "models/llama/Llama.h"

using namespace tfmc;

DecoderConfig tfmc::llama::architecture(RopeLayout layout) {
  DecoderConfig config;
  config.norm = NormKind::RMSNorm;
  config.normPlacement = NormPlacement::PreNorm;
  config.position = PositionKind::Rope;
  config.ropeLayout = layout;
  config.mlp = MlpKind::SwiGLU;
  return config;
}

namespace {

class LlamaFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "llama"; }
  llvm::StringRef huggingFaceModelType() const override { return "llama"; }
  llvm::StringRef ggufArchitecture() const override { return "llama"; }
  bool readsLlama2c() const override { return true; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    switch (file.format) {
    case CheckpointFormat::HuggingFace:
      return llama::readHuggingFaceConfig(file);
    case CheckpointFormat::Gguf:
      return llama::readGgufConfig(file);
    case CheckpointFormat::Llama2c:
      return llama::readLlama2cConfig(file);
    }
    llvm_unreachable("unknown format");
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    switch (file.format) {
    case CheckpointFormat::HuggingFace:
      return llama::mapHuggingFaceWeights(file, config);
    case CheckpointFormat::Gguf:
      return llama::mapGgufWeights(file, config);
    case CheckpointFormat::Llama2c:
      return llama::mapLlama2cWeights(file, config);
    }
    llvm_unreachable("unknown format");
  }

  // SentencePiece's <s> and </s>; llama2.c's run.c hard-codes them too.
  SpecialTokens specialTokens() const override { return {1, 2}; }
  std::vector<Preset> presets() const override { return llama::presets(); }
  TokenizerSpec presetTokenizer() const override {
    return llama::presetTokenizer();
  }
};

} // namespace

/// The registry's entry point (models/CMakeLists.txt: folder name + Family).
const ModelFamily &tfmc::llamaFamily() {
  static const LlamaFamily family;
  return family;
}
