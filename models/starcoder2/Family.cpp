//===- Family.cpp - The StarCoder2 family ---------------------------------===//
//
// LLaMA's layout (GQA, RoPE rotating halves) with LayerNorms, biases on
// every projection (use_bias), an ungated GELU-tanh MLP (`mlp.c_fc`,
// `mlp.c_proj`) and a sliding window over every layer where sliding_window
// says. Hugging Face directories, model_type starcoder2, and GGUF files,
// architecture starcoder2.
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class StarCoder2Family final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "starcoder2"; }
  llvm::StringRef huggingFaceModelType() const override { return "starcoder2"; }
  llvm::StringRef ggufArchitecture() const override { return "starcoder2"; }

  // StarCoder2's tokenizer: <|endoftext|> (0) begins and ends texts. The
  // byte tokenizer of the presets has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    return {preset("starcoder2-tiny", 64, 256, 2, 4, 2, 16, 259, 256)};
  }

protected:
  DecoderConfig architecture() const override {
    DecoderConfig c = llama::architecture(RopeLayout::HalfSplit);
    c.norm = NormKind::LayerNorm;
    c.mlp = MlpKind::GeluTanh;
    c.mlpBias = true;
    c.attention.qkvBias = c.attention.outputBias = true;
    return c;
  }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d;
    d.normEps = 1e-5; // Starcoder2Config's norm_epsilon
    d.normEpsKey = "norm_epsilon";
    d.tiedEmbeddings = true;
    return d;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = readHfGelu(config, "hidden_act", "gelu_pytorch_tanh", c.mlp))
      return err;
    auto bias = config.flag("use_bias", true);
    if (!bias)
      return bias.takeError();
    c.attention.qkvBias = c.attention.outputBias = c.mlpBias = *bias;
    // transformers windows every layer when sliding_window is set.
    return config.readCount("sliding_window", c.attention.slidingWindow, 0);
  }

  llvm::Error adaptToGguf(const Checkpoint &file,
                          DecoderConfig &c) const override {
    // llama.cpp's converter keeps the biases it finds.
    bool biased = file.tensors.contains("blk.0.attn_q.bias");
    c.attention.qkvBias = c.attention.outputBias = c.mlpBias = biased;
    return file.config.readCount("starcoder2.attention.sliding_window",
                                 c.attention.slidingWindow, 0);
  }
};

} // namespace

const ModelFamily &tfmc::starcoder2Family() {
  static const StarCoder2Family family;
  return family;
}
