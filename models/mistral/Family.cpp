//===- Family.cpp - The Mistral family: LLaMA with a sliding window -------===//
//
// LLaMA's blocks (pre-RMSNorm, half-split RoPE, GQA, SwiGLU) with
// sliding-window attention: the query at position i sees the keys in
// (i - W, i] (`sliding_window` W in config.json; null: no window). The KV
// cache is then a ring of W + prefill_chunk - 1 positions (tfm-kv-cache),
// so generation runs past W in bounded memory. Hugging Face directories,
// model_type mistral.
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class MistralFamily final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "mistral"; }
  llvm::StringRef huggingFaceModelType() const override { return "mistral"; }

  // SentencePiece's <s> and </s>.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    Preset tiny = preset("mistral-tiny", 64, 172, 2, 4, 2, 16, 259, 256);
    tiny.config.attention.slidingWindow = 32;
    return {tiny};
  }

protected:
  DecoderConfig architecture() const override {
    return llama::architecture(RopeLayout::HalfSplit);
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
      return err;
    if (config.isSet("sliding_window"))
      return config.read("sliding_window", c.attention.slidingWindow);
    return llvm::Error::success();
  }
};

} // namespace

const ModelFamily &tfmc::mistralFamily() {
  static const MistralFamily family;
  return family;
}
