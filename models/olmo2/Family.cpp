//===- Family.cpp - The OLMo-2 family -------------------------------------===//
//
// LLaMA's blocks with the norms moved after the sublayers,
// x + post_attention_layernorm(attn(x)) and
// x + post_feedforward_layernorm(mlp(x)), no norm before either, and an
// RMSNorm of all heads' queries and of all heads' keys at once
// (`self_attn.q_norm` [heads * head_dim], `k_norm` [kv_heads * head_dim])
// before RoPE. Hugging Face directories, model_type olmo2, and GGUF files,
// architecture olmo2 (whose converter stores Q and K unpermuted: llama.cpp
// rotates halves).
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class Olmo2Family final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "olmo2"; }
  llvm::StringRef huggingFaceModelType() const override { return "olmo2"; }
  llvm::StringRef ggufArchitecture() const override { return "olmo2"; }

  // OLMo-2's tokenizer ends a sequence with <|endoftext|>; the byte
  // tokenizer of the presets has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    return {preset("olmo2-tiny", 64, 172, 2, 4, 2, 16, 259, 256)};
  }

protected:
  DecoderConfig architecture() const override {
    DecoderConfig c = llama::architecture(RopeLayout::HalfSplit);
    c.normPlacement = NormPlacement::PostSublayer;
    c.attention.qkNorm = QkNorm::Whole;
    return c;
  }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d;
    d.normEps = 1e-5; // Olmo2Config's rms_norm_eps
    return d;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &) const override {
    if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
      return err;
    // Olmo2Config's attention_bias adds biases to Q, K, V and the output.
    if (config.isSet("attention_bias"))
      return llvm::createStringError("attention_bias in " + config.describe() +
                                     " is not supported");
    return llvm::Error::success();
  }
};

} // namespace

const ModelFamily &tfmc::olmo2Family() {
  static const Olmo2Family family;
  return family;
}
