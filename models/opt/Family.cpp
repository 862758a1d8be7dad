//===- Family.cpp - The OPT family ----------------------------------------===//
//
// GPT-2's blocks (pre-LayerNorm, biased projections, learned positions, a
// tied head) with separate Q, K and V projections and a ReLU MLP
// (`fc1`, `fc2`). Its position table keeps two rows before the first
// position (transformers' OPTLearnedPositionalEmbedding adds an offset of
// 2), which are not used. Hugging Face directories, model_type opt; the
// OPT-350m layout (post-norm layers, project_in / project_out around a
// narrower embedding) is refused by name.
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
#include "models/HfConfigKeys.h"
#include "models/TensorMap.h"
#include "models/gpt2/Gpt2.h"

using namespace tfmc;

namespace {

/// The rows of OPT's position table before position 0.
constexpr int64_t kPositionOffset = 2;

DecoderConfig architecture() {
  DecoderConfig c;
  c.norm = NormKind::LayerNorm;
  c.normPlacement = NormPlacement::PreNorm;
  c.position = PositionKind::Learned;
  c.mlp = MlpKind::Relu;
  c.mlpBias = true;
  c.attention.qkvBias = true;
  c.attention.outputBias = true;
  c.tiedEmbeddings = true;
  return c;
}

class OptFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "opt"; }
  llvm::StringRef huggingFaceModelType() const override { return "opt"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    const ConfigSource &config = file.config;
    DecoderConfig c = architecture();
    // OPT's LayerNorms take nn.LayerNorm's epsilon; config.json has none.
    if (auto err = readHfSizes(config, c, 2048, 1e-5))
      return std::move(err);
    c.attention.numKVHeads = c.attention.numHeads;
    if (auto err = config.read("ffn_dim", c.hiddenDim))
      return std::move(err);
    auto preNorm = config.flag("do_layer_norm_before", true);
    if (!preNorm)
      return preNorm.takeError();
    if (!*preNorm)
      return llvm::createStringError(
          "do_layer_norm_before false in " + config.describe() +
          " (OPT-350m's post-norm layers) is not supported");
    if (config.isSet("word_embed_proj_dim")) {
      int64_t projected = 0;
      if (auto err = config.read("word_embed_proj_dim", projected))
        return std::move(err);
      if (projected != c.dim)
        return llvm::createStringError(
            "word_embed_proj_dim " + llvm::Twine(projected) + " in " +
            config.describe() + " differs from hidden_size " +
            llvm::Twine(c.dim) +
            " (OPT-350m's project_in / project_out); not supported");
    }
    auto affine = config.flag("layer_norm_elementwise_affine", true);
    if (!affine)
      return affine.takeError();
    if (!*affine)
      return llvm::createStringError("layer_norm_elementwise_affine false in " +
                                     config.describe() + " is not supported");
    auto bias = config.flag("enable_bias", true);
    if (!bias)
      return bias.takeError();
    c.attention.qkvBias = c.attention.outputBias = c.mlpBias = *bias;
    if (auto err = readHfActivation(config, "activation_function", "relu",
                                    c.mlp, /*relu=*/true))
      return std::move(err);
    auto tied = config.flag("tie_word_embeddings", true);
    if (!tied)
      return tied.takeError();
    c.tiedEmbeddings = *tied || !file.tensors.contains("lm_head.weight");
    return c;
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    using R = WeightRole;
    static const TensorMapping kLayer[] = {
        {"layers.{layer}.self_attn_layer_norm.weight", {R::AttnNormWeight}},
        {"layers.{layer}.self_attn_layer_norm.bias", {R::AttnNormBias}},
        {"layers.{layer}.self_attn.q_proj.weight", {R::Wq}},
        {"layers.{layer}.self_attn.k_proj.weight", {R::Wk}},
        {"layers.{layer}.self_attn.v_proj.weight", {R::Wv}},
        {"layers.{layer}.self_attn.out_proj.weight", {R::Wo}},
        {"layers.{layer}.final_layer_norm.weight", {R::FfnNormWeight}},
        {"layers.{layer}.final_layer_norm.bias", {R::FfnNormBias}},
        {"layers.{layer}.fc1.weight", {R::WUp}},
        {"layers.{layer}.fc2.weight", {R::WDown}},
    };
    static const TensorMapping kBiases[] = {
        {"layers.{layer}.self_attn.q_proj.bias", {R::Bq}},
        {"layers.{layer}.self_attn.k_proj.bias", {R::Bk}},
        {"layers.{layer}.self_attn.v_proj.bias", {R::Bv}},
        {"layers.{layer}.self_attn.out_proj.bias", {R::Bo}},
        {"layers.{layer}.fc1.bias", {R::BUp}},
        {"layers.{layer}.fc2.bias", {R::BDown}},
    };
    TensorTable &table = file.tensors;
    // OPTForCausalLM's tensors are under "model.decoder.", OPTModel's
    // under "decoder.".
    std::string prefix = table.contains("model.decoder.embed_tokens.weight")
                             ? "model.decoder."
                             : "decoder.";
    WeightMap weights;
    TensorMapping positions = {"embed_positions.weight",
                               {R::PositionEmbedding}};
    positions.skippedRows = kPositionOffset;
    if (auto err =
            takeWeights(table, config,
                        {{"embed_tokens.weight", {R::TokenEmbedding}},
                         positions,
                         {"final_layer_norm.weight", {R::FinalNormWeight}},
                         {"final_layer_norm.bias", {R::FinalNormBias}}},
                        -1, weights, prefix))
      return std::move(err);
    for (int64_t layer = 0; layer < config.numLayers; ++layer) {
      if (auto err = takeWeights(table, config, kLayer, layer, weights, prefix))
        return std::move(err);
      if (config.mlpBias)
        if (auto err =
                takeWeights(table, config, kBiases, layer, weights, prefix))
          return std::move(err);
    }
    if (auto err = takeLmHead(table, config, weights))
      return std::move(err);
    return std::move(weights);
  }

  // OPT's GPT-2 tokenizer begins texts with </s> (2) and ends them with it.
  SpecialTokens specialTokens() const override { return {2, 2}; }

  std::vector<Preset> presets() const override {
    return {sizedPreset("opt-tiny", architecture(), 64, 256, 2, 4, 4, 16, 257,
                        256)};
  }
  TokenizerSpec presetTokenizer() const override {
    return gpt2::presetTokenizer();
  }
};

} // namespace

const ModelFamily &tfmc::optFamily() {
  static const OptFamily family;
  return family;
}
