//===- Family.cpp - GPT-J: one norm for attention and MLP, rotate-every-two
//-===//
//
// Each layer's single LayerNorm feeds both its attention and its MLP, whose
// outputs join the residual stream together; RoPE on each head's first
// `rotary_dim` features, pairing neighbours (2i, 2i + 1) as GPT-J's
// rotate_every_two does; Q/K/V and the output projection without biases, a
// GELU (tanh) MLP with them, a final LayerNorm and an untied head with a
// bias. Hugging Face directories, model_type gptj (GPTJForCausalLM names,
// under "transformer.").
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
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
  c.ropeLayout = RopeLayout::Interleaved;
  c.mlp = MlpKind::GeluTanh;
  c.mlpBias = true;
  c.tiedEmbeddings = false;
  c.lmHeadBias = true;
  return c;
}

class GptJFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "gptj"; }
  llvm::StringRef huggingFaceModelType() const override { return "gptj"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    const ConfigSource &config = file.config;
    DecoderConfig c = architecture();
    AttentionSettings &a = c.attention;
    if (auto err = config.read("n_embd", c.dim))
      return std::move(err);
    if (auto err = config.read("n_layer", c.numLayers))
      return std::move(err);
    if (auto err = config.read("n_head", a.numHeads))
      return std::move(err);
    if (auto err = config.read("n_inner", c.hiddenDim, 4 * c.dim))
      return std::move(err);
    if (auto err = config.read("vocab_size", c.vocabSize))
      return std::move(err);
    if (auto err =
            config.readContextLength("n_positions", c.contextLength, 2048))
      return std::move(err);
    if (auto err = config.read("layer_norm_epsilon", c.normEps, 1e-5))
      return std::move(err);
    if (c.dim % a.numHeads != 0)
      return llvm::createStringError(
          config.describe() + ": n_embd " + llvm::Twine(c.dim) +
          " is not divisible by n_head " + llvm::Twine(a.numHeads));
    a.numKVHeads = a.numHeads;
    a.headDim = c.dim / a.numHeads;
    // rotary_dim counts features (GPT-J 6B: 64 of 256); null: all of them.
    int64_t rotary = a.headDim;
    if (auto err = config.read("rotary_dim", rotary, a.headDim))
      return std::move(err);
    if (rotary > a.headDim || rotary % 2 != 0)
      return llvm::createStringError(
          "rotary_dim " + llvm::Twine(rotary) + " in " + config.describe() +
          " must be even and at most the head size " + llvm::Twine(a.headDim));
    a.rotaryDim = rotary == a.headDim ? 0 : rotary;
    if (auto err = readHfRopeScaling(config, a.rotatedFeatures(), c))
      return std::move(err);
    if (auto err = readHfGelu(config, "activation_function", "gelu_new", c.mlp))
      return std::move(err);
    auto tied = config.flag("tie_word_embeddings", false);
    if (!tied)
      return tied.takeError();
    if (*tied)
      return llvm::createStringError(
          "tie_word_embeddings true in " + config.describe() +
          " is not supported (GPT-J's head has a bias of its own)");
    return c;
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    using R = WeightRole;
    static const TensorMapping kLayer[] = {
        {"h.{layer}.ln_1.weight", {R::AttnNormWeight}},
        {"h.{layer}.ln_1.bias", {R::AttnNormBias}},
        {"h.{layer}.attn.q_proj.weight", {R::Wq}},
        {"h.{layer}.attn.k_proj.weight", {R::Wk}},
        {"h.{layer}.attn.v_proj.weight", {R::Wv}},
        {"h.{layer}.attn.out_proj.weight", {R::Wo}},
        {"h.{layer}.mlp.fc_in.weight", {R::WUp}},
        {"h.{layer}.mlp.fc_in.bias", {R::BUp}},
        {"h.{layer}.mlp.fc_out.weight", {R::WDown}},
        {"h.{layer}.mlp.fc_out.bias", {R::BDown}},
    };
    TensorTable &table = file.tensors;
    // GPTJForCausalLM prefixes the model's tensors with "transformer.".
    std::string prefix =
        table.contains("transformer.wte.weight") ? "transformer." : "";
    WeightMap weights;
    if (auto err =
            takeWeights(table, config, {{"wte.weight", {R::TokenEmbedding}}},
                        -1, weights, prefix))
      return std::move(err);
    for (int64_t layer = 0; layer < config.numLayers; ++layer) {
      if (auto err = takeWeights(table, config, kLayer, layer, weights, prefix))
        return std::move(err);
      // Buffers older checkpoints saved: the causal mask and its fill value.
      ignoreTensors(table,
                    {"h.{layer}.attn.bias", "h.{layer}.attn.masked_bias"},
                    layer, prefix);
    }
    if (auto err = takeWeights(table, config,
                               {{"ln_f.weight", {R::FinalNormWeight}},
                                {"ln_f.bias", {R::FinalNormBias}}},
                               -1, weights, prefix))
      return std::move(err);
    if (auto err = takeWeights(table, config,
                               {{"lm_head.weight", {R::LmHead}},
                                {"lm_head.bias", {R::LmHeadBias}}},
                               -1, weights))
      return std::move(err);
    return std::move(weights);
  }

  // GPT-J's tokenizer is GPT-2's: <|endoftext|> is 50256.
  SpecialTokens specialTokens() const override { return {50256, 50256}; }

  std::vector<Preset> presets() const override {
    Preset tiny = sizedPreset("gptj-tiny", architecture(), 64, 256, 2, 4, 4, 16,
                              257, 256);
    tiny.config.attention.rotaryDim = 4; // GPT-J 6B's rotary_dim 64 of 256
    return {tiny};
  }
  TokenizerSpec presetTokenizer() const override {
    return gpt2::presetTokenizer();
  }
};

} // namespace

const ModelFamily &tfmc::gptjFamily() {
  static const GptJFamily family;
  return family;
}
