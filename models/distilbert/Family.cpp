//===- Family.cpp - The DistilBERT family ---------------------------------===//
//
// BERT's encoder (models/bert/Bert.h) with fewer layers, under
// DistilBertConfig's keys (dim, n_layers, n_heads, hidden_dim, activation)
// and DistilBertModel's tensor names (q_lin, sa_layer_norm, ffn.lin1, ...;
// "distilbert." in DistilBertForMaskedLM): no token type embeddings, and
// the masked-LM head as vocab_transform, vocab_layer_norm and
// vocab_projector (tied to the word embeddings, with a bias). The position
// table is read as stored, also when sinusoidal_pos_embds filled it.
// Hugging Face directories, model_type distilbert.
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
#include "models/TensorMap.h"
#include "models/bert/Bert.h"

using namespace tfmc;

namespace {

/// DistilBertForMaskedLM's head bias, the sign of its masked-LM head.
constexpr const char *kMlmBias = "vocab_projector.bias";

class DistilBertFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "distilbert"; }
  llvm::StringRef huggingFaceModelType() const override { return "distilbert"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    const ConfigSource &config = file.config;
    DecoderConfig c = bert::architecture();
    AttentionSettings &a = c.attention;
    // DistilBertConfig's defaults (distilbert-base-uncased).
    if (auto err = config.read("dim", c.dim, 768))
      return std::move(err);
    if (auto err = config.read("n_layers", c.numLayers, 6))
      return std::move(err);
    if (auto err = config.read("n_heads", a.numHeads, 12))
      return std::move(err);
    a.numKVHeads = a.numHeads;
    if (c.dim % a.numHeads != 0)
      return llvm::createStringError(
          config.describe() + ": dim " + llvm::Twine(c.dim) +
          " is not divisible by n_heads " + llvm::Twine(a.numHeads));
    a.headDim = c.dim / a.numHeads;
    if (auto err = config.read("hidden_dim", c.hiddenDim, 3072))
      return std::move(err);
    if (auto err = config.read("vocab_size", c.vocabSize, 30522))
      return std::move(err);
    if (auto err = config.readContextLength("max_position_embeddings",
                                            c.contextLength, 512))
      return std::move(err);
    // DistilBERT's LayerNorms take eps 1e-12, not from config.json.
    c.normEps = 1e-12f;
    if (auto err = readHfGelu(config, "activation", "gelu", c.mlp))
      return std::move(err);
    auto tied = config.flag("tie_word_embeddings", true);
    if (!tied)
      return tied.takeError();
    if (!*tied)
      return llvm::createStringError(
          "tie_word_embeddings false in " + config.describe() +
          " is not supported (the masked-LM head reads the word embeddings)");
    c.maskedLmHead = file.tensors.contains(kMlmBias);
    return c;
  }

  llvm::Expected<WeightMap>
  mapWeights(const Checkpoint &file,
             const DecoderConfig &config) const override {
    using R = WeightRole;
    static const TensorMapping kLayer[] = {
        {"transformer.layer.{layer}.attention.q_lin.weight", {R::Wq}},
        {"transformer.layer.{layer}.attention.q_lin.bias", {R::Bq}},
        {"transformer.layer.{layer}.attention.k_lin.weight", {R::Wk}},
        {"transformer.layer.{layer}.attention.k_lin.bias", {R::Bk}},
        {"transformer.layer.{layer}.attention.v_lin.weight", {R::Wv}},
        {"transformer.layer.{layer}.attention.v_lin.bias", {R::Bv}},
        {"transformer.layer.{layer}.attention.out_lin.weight", {R::Wo}},
        {"transformer.layer.{layer}.attention.out_lin.bias", {R::Bo}},
        {"transformer.layer.{layer}.sa_layer_norm.weight", {R::AttnNormWeight}},
        {"transformer.layer.{layer}.sa_layer_norm.bias", {R::AttnNormBias}},
        {"transformer.layer.{layer}.ffn.lin1.weight", {R::WUp}},
        {"transformer.layer.{layer}.ffn.lin1.bias", {R::BUp}},
        {"transformer.layer.{layer}.ffn.lin2.weight", {R::WDown}},
        {"transformer.layer.{layer}.ffn.lin2.bias", {R::BDown}},
        {"transformer.layer.{layer}.output_layer_norm.weight",
         {R::FfnNormWeight}},
        {"transformer.layer.{layer}.output_layer_norm.bias", {R::FfnNormBias}},
    };
    TensorTable &table = file.tensors;
    std::string prefix =
        table.contains("distilbert.embeddings.word_embeddings.weight")
            ? "distilbert."
            : "";
    WeightMap weights;
    if (auto err = takeWeights(
            table, config,
            {{"embeddings.word_embeddings.weight", {R::TokenEmbedding}},
             {"embeddings.position_embeddings.weight", {R::PositionEmbedding}},
             {"embeddings.LayerNorm.weight", {R::EmbeddingNormWeight}},
             {"embeddings.LayerNorm.bias", {R::EmbeddingNormBias}}},
            -1, weights, prefix))
      return std::move(err);
    for (int64_t layer = 0; layer < config.numLayers; ++layer)
      if (auto err = takeWeights(table, config, kLayer, layer, weights, prefix))
        return std::move(err);
    ignoreTensors(table, {"embeddings.position_ids"}, -1, prefix);
    if (!config.maskedLmHead)
      return std::move(weights);
    if (auto err = takeWeights(table, config,
                               {{"vocab_transform.weight", {R::MlmDense}},
                                {"vocab_transform.bias", {R::MlmDenseBias}},
                                {"vocab_layer_norm.weight", {R::MlmNormWeight}},
                                {"vocab_layer_norm.bias", {R::MlmNormBias}},
                                {kMlmBias, {R::MlmBias}}},
                               -1, weights))
      return std::move(err);
    // Tied to the word embeddings; a stored copy adds nothing.
    ignoreTensors(table, {"vocab_projector.weight"}, -1);
    return std::move(weights);
  }

  /// None: an encoder generates nothing, and the tokenizer.json's
  /// post-processor adds [CLS] and [SEP].
  SpecialTokens specialTokens() const override { return {}; }
  TokenizerSpec presetTokenizer() const override {
    return bert::presetTokenizer();
  }
};

} // namespace

const ModelFamily &tfmc::distilbertFamily() {
  static const DistilBertFamily family;
  return family;
}
