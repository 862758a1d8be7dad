//===- Family.cpp - Phi-1/1.5/2: one norm for attention and MLP -----------===//
//
// Each layer's single LayerNorm feeds both its attention and its MLP, whose
// outputs join the residual stream together; RoPE on each head's first
// `partial_rotary_factor` of features (rotate_half pairing within them);
// biases on every projection, a GELU (tanh) MLP, a final LayerNorm and an
// untied head with a bias of its own. Hugging Face directories, model_type
// phi (PhiForCausalLM's names, transformers >= 4.37); GGUF files,
// architecture phi2 (separate or fused Q/K/V, the head's bias as
// output.bias).
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
#include "models/GgufLayout.h"
#include "models/HfConfigKeys.h"
#include "models/RopeScalingConfig.h"
#include "models/TensorMap.h"
#include "models/gpt2/Gpt2.h"

using namespace tfmc;

namespace {

DecoderConfig architecture() {
  DecoderConfig c;
  c.norm = NormKind::LayerNorm;
  c.normPlacement = NormPlacement::PreNorm;
  c.blockLayout = BlockLayout::ParallelSharedNorm;
  c.position = PositionKind::Rope;
  c.ropeLayout = RopeLayout::HalfSplit;
  c.mlp = MlpKind::GeluTanh;
  c.mlpBias = true;
  c.attention.qkvBias = true;
  c.attention.outputBias = true;
  c.tiedEmbeddings = false;
  c.lmHeadBias = true;
  return c;
}

class PhiFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "phi"; }
  llvm::StringRef huggingFaceModelType() const override { return "phi"; }
  llvm::StringRef ggufArchitecture() const override { return "phi2"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    const ConfigSource &config = file.config;
    DecoderConfig c = architecture();
    AttentionSettings &a = c.attention;
    if (file.format == CheckpointFormat::Gguf) {
      if (auto err = readGgufDecoderConfig(file, "phi2", c))
        return std::move(err);
      if (c.tiedEmbeddings)
        return llvm::createStringError(config.describe() +
                                       " has no output.weight (Phi's head is "
                                       "untied and has a bias of its own)");
      return c;
    }
    if (auto err = readHfSizes(config, c, 2048, 1e-5))
      return std::move(err);
    if (auto err = readHfRopeBase(
            config, {"rope_parameters.rope_theta", "rope_theta"}, 10000.0, c))
      return std::move(err);
    if (auto err = readHfPartialRotary(
            config,
            {"partial_rotary_factor", "rope_parameters.partial_rotary_factor"},
            0.5, c))
      return std::move(err);
    if (auto err = readHfRopeScaling(config, a.rotatedFeatures(), c))
      return std::move(err);
    if (auto err = readHfGelu(config, "hidden_act", "gelu_new", c.mlp))
      return std::move(err);
    auto qkNorm = config.flag("qk_layernorm", false);
    if (!qkNorm)
      return qkNorm.takeError();
    if (*qkNorm)
      return llvm::createStringError(
          "qk_layernorm true in " + config.describe() +
          " is not supported (a LayerNorm of queries and keys)");
    auto tied = config.flag("tie_word_embeddings", false);
    if (!tied)
      return tied.takeError();
    if (*tied)
      return llvm::createStringError(
          "tie_word_embeddings true in " + config.describe() +
          " is not supported (Phi's head has a bias of its own)");
    return c;
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    // llama.cpp writes attn_qkv for checkpoints that fused them (the
    // original Phi-2 layout), attn_q/k/v otherwise.
    if (file.format == CheckpointFormat::Gguf)
      return mapGgufDecoderWeights(
          file, config, {file.tensors.contains("blk.0.attn_qkv.weight")});
    using R = WeightRole;
    static const TensorMapping kLayer[] = {
        {"model.layers.{layer}.input_layernorm.weight", {R::AttnNormWeight}},
        {"model.layers.{layer}.input_layernorm.bias", {R::AttnNormBias}},
        {"model.layers.{layer}.self_attn.q_proj.weight", {R::Wq}},
        {"model.layers.{layer}.self_attn.q_proj.bias", {R::Bq}},
        {"model.layers.{layer}.self_attn.k_proj.weight", {R::Wk}},
        {"model.layers.{layer}.self_attn.k_proj.bias", {R::Bk}},
        {"model.layers.{layer}.self_attn.v_proj.weight", {R::Wv}},
        {"model.layers.{layer}.self_attn.v_proj.bias", {R::Bv}},
        {"model.layers.{layer}.self_attn.dense.weight", {R::Wo}},
        {"model.layers.{layer}.self_attn.dense.bias", {R::Bo}},
        {"model.layers.{layer}.mlp.fc1.weight", {R::WUp}},
        {"model.layers.{layer}.mlp.fc1.bias", {R::BUp}},
        {"model.layers.{layer}.mlp.fc2.weight", {R::WDown}},
        {"model.layers.{layer}.mlp.fc2.bias", {R::BDown}},
    };
    TensorTable &table = file.tensors;
    WeightMap weights;
    if (auto err = takeWeights(
            table, config, {{"model.embed_tokens.weight", {R::TokenEmbedding}}},
            -1, weights))
      return std::move(err);
    for (int64_t layer = 0; layer < config.numLayers; ++layer)
      if (auto err = takeWeights(table, config, kLayer, layer, weights))
        return std::move(err);
    if (auto err =
            takeWeights(table, config,
                        {{"model.final_layernorm.weight", {R::FinalNormWeight}},
                         {"model.final_layernorm.bias", {R::FinalNormBias}},
                         {"lm_head.weight", {R::LmHead}},
                         {"lm_head.bias", {R::LmHeadBias}}},
                        -1, weights))
      return std::move(err);
    return std::move(weights);
  }

  // Phi's CodeGen tokenizer is GPT-2's: <|endoftext|> is 50256.
  SpecialTokens specialTokens() const override { return {50256, 50256}; }

  std::vector<Preset> presets() const override {
    Preset tiny =
        sizedPreset("phi-tiny", architecture(), 64, 256, 2, 4, 4, 16, 257, 256);
    tiny.config.attention.rotaryDim = 6; // Phi-2's partial_rotary_factor 0.4
    return {tiny};
  }
  TokenizerSpec presetTokenizer() const override {
    return gpt2::presetTokenizer();
  }
};

} // namespace

const ModelFamily &tfmc::phiFamily() {
  static const PhiFamily family;
  return family;
}
