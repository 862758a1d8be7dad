//===- Family.cpp - The Qwen3 family: LLaMA with per-head Q/K norms -------===//
//
// LLaMA's blocks plus an RMSNorm of each head's queries and keys before RoPE
// (`self_attn.q_norm` / `k_norm`, weights [head_dim]), no projection biases
// (Qwen2's are gone) and an explicit head_dim, 128 by default, which need
// not be hidden_size / heads. The sliding window is Qwen2's. Hugging Face
// directories, model_type qwen3, and GGUF files, architecture qwen3 (whose
// converter stores Q and K unpermuted: llama.cpp rotates halves).
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class Qwen3Family final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "qwen3"; }
  llvm::StringRef huggingFaceModelType() const override { return "qwen3"; }
  llvm::StringRef ggufArchitecture() const override { return "qwen3"; }

  // <|endoftext|> ends a sequence; Qwen3 adds no BOS of its own. The byte
  // tokenizer of the presets has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    // head_dim 32 with 4 heads of a 64-wide model: Q is 128 wide.
    return {preset("qwen3-tiny", 64, 172, 2, 4, 2, 32, 259, 256)};
  }

protected:
  DecoderConfig architecture() const override {
    DecoderConfig c = llama::architecture(RopeLayout::HalfSplit);
    c.attention.qkNorm = QkNorm::PerHead;
    return c;
  }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d;
    d.headDim = 128; // Qwen3Config's default
    return d;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
      return err;
    // Qwen3Config's attention_bias adds biases to Q, K, V and the output.
    if (config.isSet("attention_bias"))
      return llvm::createStringError("attention_bias in " + config.describe() +
                                     " is not supported");
    return readQwenSlidingWindow(config, c);
  }
};

} // namespace

const ModelFamily &tfmc::qwen3Family() {
  static const Qwen3Family family;
  return family;
}
