//===- Family.cpp - The BLOOM family: ALiBi and a normalised embedding ----===//
//
// Pre-LayerNorm blocks with biases everywhere, no position embedding but
// ALiBi biases on the attention scores (slopes for any head count), a
// LayerNorm of the token embeddings before the first layer, a GELU (tanh)
// MLP of 4 x hidden and the head tied to the embeddings. Hugging Face
// directories, model_type bloom: the fused query_key_value holds each
// head's query, key and value rows one after the other; GGUF files,
// architecture bloom, where llama.cpp's converter reordered it to all
// queries, then all keys, then all values, and wrote the tied head out as
// `output.weight`.
//
//===----------------------------------------------------------------------===//
#include "models/GgufLayout.h"
#include "models/TensorMap.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

/// BLOOM was trained on sequences of 2048; ALiBi has no table that limits
/// positions, so config.json's seq_length (or --context) only sizes the KV
/// cache.
constexpr int64_t kDefaultContext = 2048;

/// The first of `keys` that config.json sets, read into `out` (BloomConfig
/// accepts the old and the standard name of some sizes).
llvm::Error readEither(const ConfigSource &config,
                       std::initializer_list<const char *> keys, int64_t &out) {
  for (const char *key : keys)
    if (config.isSet(key))
      return config.read(key, out);
  return config.read(*keys.begin(), out);
}

DecoderConfig architecture() {
  DecoderConfig c;
  c.norm = NormKind::LayerNorm;
  c.normPlacement = NormPlacement::PreNorm;
  c.position = PositionKind::Alibi;
  c.embeddingLayerNorm = true;
  c.mlp = MlpKind::GeluTanh;
  c.mlpBias = true;
  c.attention.qkvBias = true;
  c.attention.outputBias = true;
  c.tiedEmbeddings = true;
  return c;
}

class BloomFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "bloom"; }
  llvm::StringRef huggingFaceModelType() const override { return "bloom"; }
  llvm::StringRef ggufArchitecture() const override { return "bloom"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    const ConfigSource &config = file.config;
    DecoderConfig c = architecture();
    if (file.format == CheckpointFormat::Gguf) {
      if (auto err = readGgufDecoderConfig(file, "bloom", c))
        return std::move(err);
      if (c.attention.numKVHeads != c.attention.numHeads)
        return llvm::createStringError(
            config.describe() + ": bloom.attention.head_count_kv " +
            llvm::Twine(c.attention.numKVHeads) +
            " differs from bloom.attention.head_count " +
            llvm::Twine(c.attention.numHeads) + " (BLOOM has no KV groups)");
      return c;
    }
    AttentionSettings &a = c.attention;
    if (auto err = readEither(config, {"n_embed", "hidden_size"}, c.dim))
      return std::move(err);
    if (auto err =
            readEither(config, {"n_layer", "num_hidden_layers"}, c.numLayers))
      return std::move(err);
    if (auto err =
            readEither(config, {"n_head", "num_attention_heads"}, a.numHeads))
      return std::move(err);
    if (auto err = config.read("vocab_size", c.vocabSize))
      return std::move(err);
    if (auto err = config.readContextLength("seq_length", c.contextLength,
                                            kDefaultContext))
      return std::move(err);
    if (auto err = config.read("layer_norm_epsilon", c.normEps, 1e-5))
      return std::move(err);
    if (c.dim % a.numHeads != 0)
      return llvm::createStringError(
          config.describe() + ": dim " + llvm::Twine(c.dim) +
          " is not divisible by num_heads " + llvm::Twine(a.numHeads));
    a.numKVHeads = a.numHeads;
    a.headDim = c.dim / a.numHeads;
    c.hiddenDim = 4 * c.dim;
    auto postNorm =
        config.flag("apply_residual_connection_post_layernorm", false);
    if (!postNorm)
      return postNorm.takeError();
    if (*postNorm)
      return llvm::createStringError(
          "apply_residual_connection_post_layernorm in " + config.describe() +
          " is not supported");
    auto tied = config.flag("tie_word_embeddings", true);
    if (!tied)
      return tied.takeError();
    if (!*tied)
      return llvm::createStringError("tie_word_embeddings false in " +
                                     config.describe() +
                                     " is not supported (BLOOM ties its head)");
    return c;
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    if (file.format == CheckpointFormat::Gguf)
      return mapGgufDecoderWeights(file, config, {/*qkv=*/true});
    using R = WeightRole;
    static const TensorMapping kLayer[] = {
        {"h.{layer}.input_layernorm.weight", {R::AttnNormWeight}},
        {"h.{layer}.input_layernorm.bias", {R::AttnNormBias}},
        {"h.{layer}.self_attention.query_key_value.weight",
         {R::Wq, R::Wk, R::Wv},
         false,
         false,
         /*perHead=*/true},
        {"h.{layer}.self_attention.query_key_value.bias",
         {R::Bq, R::Bk, R::Bv},
         false,
         false,
         /*perHead=*/true},
        {"h.{layer}.self_attention.dense.weight", {R::Wo}},
        {"h.{layer}.self_attention.dense.bias", {R::Bo}},
        {"h.{layer}.post_attention_layernorm.weight", {R::FfnNormWeight}},
        {"h.{layer}.post_attention_layernorm.bias", {R::FfnNormBias}},
        {"h.{layer}.mlp.dense_h_to_4h.weight", {R::WUp}},
        {"h.{layer}.mlp.dense_h_to_4h.bias", {R::BUp}},
        {"h.{layer}.mlp.dense_4h_to_h.weight", {R::WDown}},
        {"h.{layer}.mlp.dense_4h_to_h.bias", {R::BDown}},
    };
    TensorTable &table = file.tensors;
    // BloomForCausalLM prefixes the model's tensors with "transformer.".
    std::string prefix = table.contains("transformer.word_embeddings.weight")
                             ? "transformer."
                             : "";
    WeightMap weights;
    if (auto err = takeWeights(
            table, config,
            {{"word_embeddings.weight", {R::TokenEmbedding}},
             {"word_embeddings_layernorm.weight", {R::EmbeddingNormWeight}},
             {"word_embeddings_layernorm.bias", {R::EmbeddingNormBias}}},
            -1, weights, prefix))
      return std::move(err);
    for (int64_t layer = 0; layer < config.numLayers; ++layer)
      if (auto err = takeWeights(table, config, kLayer, layer, weights, prefix))
        return std::move(err);
    if (auto err = takeWeights(table, config,
                               {{"ln_f.weight", {R::FinalNormWeight}},
                                {"ln_f.bias", {R::FinalNormBias}}},
                               -1, weights, prefix))
      return std::move(err);
    table.ignore("lm_head.weight");
    return std::move(weights);
  }

  // BLOOM's tokenizer: <s> 1, </s> 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    // Six heads: the slopes of a head count that is not a power of two.
    DecoderConfig c = architecture();
    c.dim = 96;
    c.hiddenDim = 4 * c.dim;
    c.numLayers = 2;
    c.attention.numHeads = c.attention.numKVHeads = 6;
    c.attention.headDim = 16;
    c.vocabSize = 259;
    c.contextLength = 256;
    return {{"bloom-tiny", c}};
  }
  TokenizerSpec presetTokenizer() const override {
    return llama::presetTokenizer();
  }
};

} // namespace

const ModelFamily &tfmc::bloomFamily() {
  static const BloomFamily family;
  return family;
}
