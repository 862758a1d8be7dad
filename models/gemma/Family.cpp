//===- Family.cpp - The Gemma family --------------------------------------===//
//
// LLaMA's layout with Gemma's choices: token embeddings scaled by
// sqrt(hidden_size) (the tied LM head reads them unscaled), RMSNorm scaling
// by (1 + weight), a GeGLU feed-forward (gelu_pytorch_tanh(gate) * up), a
// head size of its own (head_dim, 256 by default, need not be hidden_size /
// heads) and a tied head. Hugging Face directories, model_type gemma, and
// GGUF files, architecture gemma.
//
//===----------------------------------------------------------------------===//
#include "models/gemma/Gemma.h"

using namespace tfmc;

namespace {

class GemmaFamily final : public gemma::GemmaLayoutFamily {
public:
  llvm::StringRef name() const override { return "gemma"; }
  llvm::StringRef huggingFaceModelType() const override { return "gemma"; }
  llvm::StringRef ggufArchitecture() const override { return "gemma"; }

  std::vector<Preset> presets() const override {
    // head_dim 24 with 4 heads of a 64-wide model: Q is 96 wide.
    return {gemmaPreset("gemma-tiny", 64, 172, 2, 4, 1, 24, 259, 256)};
  }

protected:
  DecoderConfig architecture() const override { return gemma::architecture(); }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    return gemma::readCommonKeys(config, c);
  }

  llvm::Error adaptToGguf(const Checkpoint &, DecoderConfig &c) const override {
    gemma::adaptToGguf(c);
    return llvm::Error::success();
  }
};

} // namespace

const ModelFamily &tfmc::gemmaFamily() {
  static const GemmaFamily family;
  return family;
}
