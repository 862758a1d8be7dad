//===- Family.cpp - The Phi-3 family --------------------------------------===//
//
// LLaMA's blocks (RMSNorm, SwiGLU, RoPE rotating halves, GQA) with Q, K and
// V stored as one `self_attn.qkv_proj` (Q's rows, then K's, then V's) and
// the gate and up projections as one `mlp.gate_up_proj` (the gate's rows
// first), split exactly; LongRoPE (short and long factors) for the 128k
// models, partial rotation where partial_rotary_factor says (Phi-4-mini),
// and a sliding window over every layer where sliding_window says
// (Phi-3-mini-4k's 2047). Hugging Face directories, model_type phi3, and
// GGUF files, architecture phi3 (attn_qkv, and ffn_up holding gate and
// up).
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class Phi3Family final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "phi3"; }
  llvm::StringRef huggingFaceModelType() const override { return "phi3"; }
  llvm::StringRef ggufArchitecture() const override { return "phi3"; }

  // Phi-3's tokenizer is LLaMA's (<s> 1, </s> 2; <|endoftext|> 32000 ends
  // its chats), as is the byte tokenizer of the presets.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    return {preset("phi3-tiny", 64, 172, 2, 4, 2, 16, 259, 256)};
  }

protected:
  DecoderConfig architecture() const override {
    return llama::architecture(RopeLayout::HalfSplit);
  }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d;
    d.normEps = 1e-5; // Phi3Config's rms_norm_eps
    return d;
  }

  FusedProjections fusedProjections() const override {
    return {/*qkv=*/true, /*gateUp=*/true};
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
      return err;
    // transformers windows every layer when sliding_window is set.
    return config.readCount("sliding_window", c.attention.slidingWindow, 0);
  }

  // The window as the checkpoint was trained with it, every layer, as
  // transformers runs it.
  llvm::Error adaptToGguf(const Checkpoint &file,
                          DecoderConfig &c) const override {
    return file.config.readCount("phi3.attention.sliding_window",
                                 c.attention.slidingWindow, 0);
  }
};

} // namespace

const ModelFamily &tfmc::phi3Family() {
  static const Phi3Family family;
  return family;
}
