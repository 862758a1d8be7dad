//===- Family.cpp - GPT-NeoX (Pythia): parallel blocks, partial RoPE
//-------===//
//
// LayerNorm blocks with biases everywhere whose attention and MLP read the
// same input and join the residual stream together
// (`use_parallel_residual`, sequential when false), RoPE on each head's
// first `rotary_pct` of features (rotate_half pairing within them), a GELU
// MLP and an untied head (`embed_out`). Hugging Face directories,
// model_type gpt_neox: the fused query_key_value holds each head's query,
// key and value rows one after the other, as BLOOM's does; GGUF files,
// architecture gptneox, where llama.cpp's converter reordered it to all
// queries, then all keys, then all values.
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
#include "models/GgufLayout.h"
#include "models/HfConfigKeys.h"
#include "models/RopeScalingConfig.h"
#include "models/TensorMap.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

DecoderConfig architecture() {
  DecoderConfig c;
  c.norm = NormKind::LayerNorm;
  c.normPlacement = NormPlacement::PreNorm;
  c.blockLayout = BlockLayout::Parallel;
  c.position = PositionKind::Rope;
  c.ropeLayout = RopeLayout::HalfSplit;
  c.mlp = MlpKind::GeluErf;
  c.mlpBias = true;
  c.attention.qkvBias = true;
  c.attention.outputBias = true;
  c.tiedEmbeddings = false;
  return c;
}

class GptNeoXFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "gpt_neox"; }
  llvm::StringRef huggingFaceModelType() const override { return "gpt_neox"; }
  llvm::StringRef ggufArchitecture() const override { return "gptneox"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    const ConfigSource &config = file.config;
    DecoderConfig c = architecture();
    AttentionSettings &a = c.attention;
    if (file.format == CheckpointFormat::Gguf)
      return readGgufConfig(file, c);
    if (auto err = readHfSizes(config, c, 2048, 1e-5))
      return std::move(err);
    // GPT-NeoX has no KV groups.
    a.numKVHeads = a.numHeads;
    // transformers 4.x: rotary_emb_base and rotary_pct; 5.x nests both in
    // rope_parameters (as rope_theta and partial_rotary_factor).
    if (auto err = readHfRopeBase(
            config,
            {"rope_parameters.rope_theta", "rotary_emb_base", "rope_theta"},
            10000.0, c))
      return std::move(err);
    if (auto err =
            readHfPartialRotary(config,
                                {"rotary_pct", "partial_rotary_factor",
                                 "rope_parameters.partial_rotary_factor"},
                                0.25, c))
      return std::move(err);
    if (auto err = readHfRopeScaling(config, a.rotatedFeatures(), c))
      return std::move(err);
    if (auto err = readHfGelu(config, "hidden_act", "gelu", c.mlp))
      return std::move(err);
    auto parallel = config.flag("use_parallel_residual", true);
    if (!parallel)
      return parallel.takeError();
    if (!*parallel)
      c.blockLayout = BlockLayout::Sequential;
    auto bias = config.flag("attention_bias", true);
    if (!bias)
      return bias.takeError();
    a.qkvBias = a.outputBias = *bias;
    auto tied = config.flag("tie_word_embeddings", false);
    if (!tied)
      return tied.takeError();
    c.tiedEmbeddings = *tied;
    return c;
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    if (file.format == CheckpointFormat::Gguf)
      return mapGgufDecoderWeights(file, config, {/*qkv=*/true});
    using R = WeightRole;
    static const TensorMapping kLayer[] = {
        {"layers.{layer}.input_layernorm.weight", {R::AttnNormWeight}},
        {"layers.{layer}.input_layernorm.bias", {R::AttnNormBias}},
        {"layers.{layer}.attention.query_key_value.weight",
         {R::Wq, R::Wk, R::Wv},
         false,
         false,
         /*perHead=*/true},
        {"layers.{layer}.attention.dense.weight", {R::Wo}},
        {"layers.{layer}.post_attention_layernorm.weight", {R::FfnNormWeight}},
        {"layers.{layer}.post_attention_layernorm.bias", {R::FfnNormBias}},
        {"layers.{layer}.mlp.dense_h_to_4h.weight", {R::WUp}},
        {"layers.{layer}.mlp.dense_h_to_4h.bias", {R::BUp}},
        {"layers.{layer}.mlp.dense_4h_to_h.weight", {R::WDown}},
        {"layers.{layer}.mlp.dense_4h_to_h.bias", {R::BDown}},
    };
    static const TensorMapping kBiases[] = {
        {"layers.{layer}.attention.query_key_value.bias",
         {R::Bq, R::Bk, R::Bv},
         false,
         false,
         /*perHead=*/true},
        {"layers.{layer}.attention.dense.bias", {R::Bo}},
    };
    TensorTable &table = file.tensors;
    // GPTNeoXForCausalLM prefixes the model's tensors with "gpt_neox.".
    std::string prefix =
        table.contains("gpt_neox.embed_in.weight") ? "gpt_neox." : "";
    WeightMap weights;
    if (auto err = takeWeights(table, config,
                               {{"embed_in.weight", {R::TokenEmbedding}}}, -1,
                               weights, prefix))
      return std::move(err);
    for (int64_t layer = 0; layer < config.numLayers; ++layer) {
      if (auto err = takeWeights(table, config, kLayer, layer, weights, prefix))
        return std::move(err);
      if (config.attention.qkvBias)
        if (auto err =
                takeWeights(table, config, kBiases, layer, weights, prefix))
          return std::move(err);
      // Buffers older checkpoints saved: the causal mask and the RoPE
      // frequencies, both recomputed.
      ignoreTensors(table,
                    {"layers.{layer}.attention.bias",
                     "layers.{layer}.attention.masked_bias",
                     "layers.{layer}.attention.rotary_emb.inv_freq"},
                    layer, prefix);
    }
    if (auto err =
            takeWeights(table, config,
                        {{"final_layer_norm.weight", {R::FinalNormWeight}},
                         {"final_layer_norm.bias", {R::FinalNormBias}}},
                        -1, weights, prefix))
      return std::move(err);
    if (!config.tiedEmbeddings) {
      if (auto err = takeWeights(
              table, config, {{"embed_out.weight", {R::LmHead}}}, -1, weights))
        return std::move(err);
    } else {
      table.ignore("embed_out.weight");
    }
    return std::move(weights);
  }

  /// llama.cpp's gptneox keys: the shared ones (rope.dimension_count sizes
  /// the partial RoPE) plus use_parallel_residual; no key for the MLP's
  /// activation, which is the exact GELU Pythia was trained with.
  static llvm::Expected<DecoderConfig> readGgufConfig(const Checkpoint &file,
                                                      DecoderConfig c) {
    const ConfigSource &config = file.config;
    if (auto err = readGgufDecoderConfig(file, "gptneox", c))
      return std::move(err);
    if (c.attention.numKVHeads != c.attention.numHeads)
      return llvm::createStringError(
          config.describe() + ": gptneox.attention.head_count_kv " +
          llvm::Twine(c.attention.numKVHeads) +
          " differs from gptneox.attention.head_count " +
          llvm::Twine(c.attention.numHeads) + " (GPT-NeoX has no KV groups)");
    auto parallel = config.flag("gptneox.use_parallel_residual", true);
    if (!parallel)
      return parallel.takeError();
    if (!*parallel)
      c.blockLayout = BlockLayout::Sequential;
    return c;
  }

  // The GPT-NeoX-20B tokenizer Pythia uses: <|endoftext|> is 0.
  SpecialTokens specialTokens() const override { return {0, 0}; }

  std::vector<Preset> presets() const override {
    Preset tiny = sizedPreset("gpt-neox-tiny", architecture(), 64, 256, 2, 4, 4,
                              16, 259, 256);
    tiny.config.attention.rotaryDim = 4; // Pythia's rotary_pct 0.25
    return {tiny};
  }
  TokenizerSpec presetTokenizer() const override {
    return llama::presetTokenizer();
  }
};

} // namespace

const ModelFamily &tfmc::gpt_neoxFamily() {
  static const GptNeoXFamily family;
  return family;
}
