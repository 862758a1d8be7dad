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
#include "models/LlamaLayout.h"
#include "models/gemma/Gemma.h"

#include <cmath>

using namespace tfmc;

namespace {

class GemmaFamily final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "gemma"; }
  llvm::StringRef huggingFaceModelType() const override { return "gemma"; }
  llvm::StringRef ggufArchitecture() const override { return "gemma"; }

  // Gemma's tokenizer: <eos> 1, <bos> 2. The byte tokenizer of the presets
  // has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    // head_dim 24 with 4 heads of a 64-wide model: Q is 96 wide.
    Preset tiny = preset("gemma-tiny", 64, 172, 2, 4, 1, 24, 259, 256);
    tiny.config.embeddingScale = float(std::sqrt(64.0));
    return {tiny};
  }

protected:
  DecoderConfig architecture() const override { return gemma::architecture(); }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d;
    d.tiedEmbeddings = true;
    d.headDim = 256;
    return d;
  }

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
