//===- Family.cpp - StableLM: LLaMA's layout with LayerNorms, partial RoPE
//-===//
//
// LLaMA's tensor names and SwiGLU MLP, but LayerNorms with biases, RoPE on
// each head's first partial_rotary_factor (0.25) of features (rotate_half
// pairing within them), optional Q/K/V biases (`use_qkv_bias`, StableLM 2)
// and, as in StableLM 2 12B, one norm feeding attention and MLP side by
// side (`use_parallel_residual`) and a LayerNorm without bias of each
// head's queries and keys, with weights per head (`qk_layernorm`). Hugging
// Face directories, model_type stablelm, and GGUF files, architecture
// stablelm, where a layer without `ffn_norm` is a parallel one and
// `attn_q_norm` ([heads, head_dim]) the per-head norms, as llama.cpp reads
// them.
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class StableLmFamily final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "stablelm"; }
  llvm::StringRef huggingFaceModelType() const override { return "stablelm"; }
  llvm::StringRef ggufArchitecture() const override { return "stablelm"; }

  // <|endoftext|> begins and ends StableLM's sequences; the byte tokenizer
  // of the presets has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    Preset tiny = preset("stablelm-tiny", 64, 172, 2, 4, 4, 16, 259, 256);
    tiny.config.attention.rotaryDim = 4; // partial_rotary_factor 0.25
    return {tiny};
  }

protected:
  DecoderConfig architecture() const override {
    DecoderConfig c = llama::architecture(RopeLayout::HalfSplit);
    c.norm = NormKind::LayerNorm;
    return c;
  }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d;
    d.normEps = 1e-5; // StableLmConfig's layer_norm_eps
    d.partialRotaryFactor = 0.25;
    return d;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
      return err;
    auto qkvBias = config.flag("use_qkv_bias", false);
    if (!qkvBias)
      return qkvBias.takeError();
    c.attention.qkvBias = *qkvBias;
    auto qkNorm = config.flag("qk_layernorm", false);
    if (!qkNorm)
      return qkNorm.takeError();
    if (*qkNorm)
      c.attention.qkNorm = QkNorm::PerHeadLayerNorm;
    auto parallel = config.flag("use_parallel_residual", false);
    if (!parallel)
      return parallel.takeError();
    if (*parallel)
      c.blockLayout = BlockLayout::ParallelSharedNorm;
    return llvm::Error::success();
  }

  llvm::Error adaptToGguf(const Checkpoint &file,
                          DecoderConfig &c) const override {
    const TensorTable &tensors = file.tensors;
    if (tensors.contains("blk.0.attn_q_norm.weight"))
      c.attention.qkNorm = QkNorm::PerHeadLayerNorm;
    c.attention.qkvBias = tensors.contains("blk.0.attn_q.bias");
    // llama.cpp runs a layer without ffn_norm in parallel; the converter's
    // flag, where written, must say the same.
    bool parallel = !tensors.contains("blk.0.ffn_norm.weight");
    auto stated = file.config.flag("stablelm.use_parallel_residual", parallel);
    if (!stated)
      return stated.takeError();
    if (*stated != parallel)
      return llvm::createStringError(
          file.config.describe() + ": stablelm.use_parallel_residual is " +
          (*stated ? "true" : "false") + " but the layers " +
          (parallel ? "have no" : "have an") + " ffn_norm");
    if (parallel)
      c.blockLayout = BlockLayout::ParallelSharedNorm;
    return llvm::Error::success();
  }
};

} // namespace

const ModelFamily &tfmc::stablelmFamily() {
  static const StableLmFamily family;
  return family;
}
