//===- Family.cpp - The Falcon family -------------------------------------===//
//
// LayerNorm blocks, RoPE over whole heads (rotating halves), a GELU (erf)
// MLP without gate and, by default, no biases, in three layouts of
// FalconConfig:
//   - Falcon-7B (multi_query, parallel_attn): one KV head, one norm feeding
//     attention and MLP in parallel; `query_key_value` holds every query
//     head's rows, then the key's, then the value's;
//   - the new decoder architecture (Falcon-40B/180B and later,
//     new_decoder_architecture): num_kv_heads groups, two norms (`ln_attn`,
//     `ln_mlp`; one `input_layernorm` with num_ln_in_parallel_attn 1), and
//     `query_key_value` grouped per KV head: that group's queries, its key,
//     its value;
//   - neither (Falcon-RW): each head's query, key and value rows in turn,
//     sequential blocks unless parallel_attn.
// With alibi (Falcon-RW-1B), ALiBi replaces RoPE; Falcon adds its biases
// before scaling the scores, so its slopes are BLOOM's times
// 1/sqrt(head_dim). Hugging Face directories, model_type falcon, and GGUF
// files, architecture falcon, whose converter stores Q, K and V one after
// the other and the new architecture's second norm as attn_norm_2.
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
#include "models/GgufLayout.h"
#include "models/HfConfigKeys.h"
#include "models/RopeScalingConfig.h"
#include "models/TensorMap.h"
#include "models/llama/Llama.h"

#include <cmath>

using namespace tfmc;

namespace {

DecoderConfig architecture() {
  DecoderConfig c;
  c.norm = NormKind::LayerNorm;
  c.normPlacement = NormPlacement::PreNorm;
  c.blockLayout = BlockLayout::ParallelSharedNorm;
  c.position = PositionKind::Rope;
  c.ropeLayout = RopeLayout::HalfSplit;
  c.mlp = MlpKind::GeluErf;
  c.tiedEmbeddings = true;
  return c;
}

/// How a checkpoint's query_key_value orders its rows.
enum class QkvOrder {
  Stacked,    ///< all queries, then the keys, then the values
  PerKvGroup, ///< per KV head: its queries, its key, its value
  PerHead,    ///< per head: its query, key and value
};

class FalconFamily final : public ModelFamily {
public:
  llvm::StringRef name() const override { return "falcon"; }
  llvm::StringRef huggingFaceModelType() const override { return "falcon"; }
  llvm::StringRef ggufArchitecture() const override { return "falcon"; }

  llvm::Expected<DecoderConfig>
  readConfig(const Checkpoint &file) const override {
    DecoderConfig c = architecture();
    if (file.format == CheckpointFormat::Gguf)
      return readGgufConfig(file, c);
    const ConfigSource &config = file.config;
    AttentionSettings &a = c.attention;
    if (auto err = readHfSizes(config, c, 2048, 1e-5))
      return std::move(err);
    if (auto err = config.read("layer_norm_epsilon", c.normEps, 1e-5))
      return std::move(err);
    if (auto err = config.read("ffn_hidden_size", c.hiddenDim, 4 * c.dim))
      return std::move(err);
    auto alibi = config.flag("alibi", false);
    if (!alibi)
      return alibi.takeError();
    if (*alibi) {
      // Falcon-RW: ALiBi instead of RoPE, added to the scores before they
      // are scaled by 1/sqrt(head_dim).
      c.position = PositionKind::Alibi;
      a.alibiSlopeScale = float(1.0 / std::sqrt(double(a.headDim)));
    }
    if (auto err = readLayout(config, c))
      return std::move(err);
    auto bias = config.flag("bias", false);
    if (!bias)
      return bias.takeError();
    a.qkvBias = a.outputBias = c.mlpBias = *bias;
    if (auto err = readHfGelu(config, "activation", "gelu", c.mlp))
      return std::move(err);
    if (c.position == PositionKind::Rope) {
      if (auto err = readHfRopeBase(
              config, {"rope_parameters.rope_theta", "rope_theta"}, 10000.0, c))
        return std::move(err);
      if (auto err = readHfRopeScaling(config, a.rotatedFeatures(), c))
        return std::move(err);
    }
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
    if (file.format == CheckpointFormat::Gguf) {
      // The shared map reads one norm a layer; the second is attn_norm_2
      // here, not ffn_norm.
      DecoderConfig oneNorm = config;
      oneNorm.blockLayout = BlockLayout::ParallelSharedNorm;
      auto weights = mapGgufDecoderWeights(file, oneNorm, {/*qkv=*/true});
      if (!weights || config.blockLayout == BlockLayout::ParallelSharedNorm)
        return weights;
      for (int64_t i = 0; i < config.numLayers; ++i)
        if (auto err = takeWeights(
                file.tensors, config,
                {{"blk.{layer}.attn_norm_2.weight", {R::FfnNormWeight}},
                 {"blk.{layer}.attn_norm_2.bias", {R::FfnNormBias}}},
                i, *weights))
          return std::move(err);
      return weights;
    }
    QkvOrder order = qkvOrder(file.config, config);
    TensorMapping qkv = {"h.{layer}.self_attention.query_key_value.weight",
                         {R::Wq, R::Wk, R::Wv}};
    qkv.perHead = order == QkvOrder::PerHead;
    qkv.perKvGroup = order == QkvOrder::PerKvGroup;
    TensorMapping qkvBias = qkv;
    qkvBias.source = "h.{layer}.self_attention.query_key_value.bias";
    qkvBias.roles = {R::Bq, R::Bk, R::Bv};
    std::vector<TensorMapping> layer = {
        qkv,
        {"h.{layer}.self_attention.dense.weight", {R::Wo}},
        {"h.{layer}.mlp.dense_h_to_4h.weight", {R::WUp}},
        {"h.{layer}.mlp.dense_4h_to_h.weight", {R::WDown}},
    };
    if (config.attention.qkvBias)
      layer.insert(layer.end(),
                   {qkvBias,
                    {"h.{layer}.self_attention.dense.bias", {R::Bo}},
                    {"h.{layer}.mlp.dense_h_to_4h.bias", {R::BUp}},
                    {"h.{layer}.mlp.dense_4h_to_h.bias", {R::BDown}}});
    // Two norms: the new architecture's ln_attn / ln_mlp, or Falcon-RW's
    // input_layernorm / post_attention_layernorm.
    bool twoNorms = config.blockLayout != BlockLayout::ParallelSharedNorm;
    bool newArchitecture =
        file.tensors.contains("transformer.h.0.ln_attn.weight");
    const char *first =
        newArchitecture ? "h.{layer}.ln_attn" : "h.{layer}.input_layernorm";
    const char *second = newArchitecture ? "h.{layer}.ln_mlp"
                                         : "h.{layer}.post_attention_layernorm";
    std::vector<std::string> normNames = {
        std::string(first) + ".weight", std::string(first) + ".bias",
        std::string(second) + ".weight", std::string(second) + ".bias"};
    layer.push_back({normNames[0].c_str(), {R::AttnNormWeight}});
    layer.push_back({normNames[1].c_str(), {R::AttnNormBias}});
    if (twoNorms) {
      layer.push_back({normNames[2].c_str(), {R::FfnNormWeight}});
      layer.push_back({normNames[3].c_str(), {R::FfnNormBias}});
    }
    TensorTable &table = file.tensors;
    WeightMap weights;
    if (auto err = takeWeights(table, config,
                               {{"word_embeddings.weight", {R::TokenEmbedding}},
                                {"ln_f.weight", {R::FinalNormWeight}},
                                {"ln_f.bias", {R::FinalNormBias}}},
                               -1, weights, "transformer."))
      return std::move(err);
    for (int64_t i = 0; i < config.numLayers; ++i)
      if (auto err =
              takeWeights(table, config, layer, i, weights, "transformer."))
        return std::move(err);
    if (auto err = takeLmHead(table, config, weights))
      return std::move(err);
    return std::move(weights);
  }

  // Falcon's tokenizer: >>ABSTRACT<< 1 ... <|endoftext|> 11 begins and
  // ends texts. The presets' byte tokenizer has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    // Falcon-7B's layout: one KV head, one norm for both branches.
    return {sizedPreset("falcon-tiny", architecture(), 64, 256, 2, 4, 1, 16,
                        259, 256)};
  }
  TokenizerSpec presetTokenizer() const override {
    return llama::presetTokenizer();
  }

private:
  /// KV heads and block layout of FalconConfig's three layouts.
  static llvm::Error readLayout(const ConfigSource &config, DecoderConfig &c) {
    AttentionSettings &a = c.attention;
    auto newArchitecture = config.flag("new_decoder_architecture", false);
    if (!newArchitecture)
      return newArchitecture.takeError();
    auto multiQuery = config.flag("multi_query", true);
    if (!multiQuery)
      return multiQuery.takeError();
    auto parallel = config.flag("parallel_attn", true);
    if (!parallel)
      return parallel.takeError();
    if (*newArchitecture) {
      if (auto err = config.read("num_kv_heads", a.numKVHeads, a.numHeads))
        return err;
      int64_t norms = 0;
      if (auto err = config.read("num_ln_in_parallel_attn", norms, 2))
        return err;
      if (norms != 1 && norms != 2)
        return llvm::createStringError("num_ln_in_parallel_attn " +
                                       llvm::Twine(norms) + " in " +
                                       config.describe() + " must be 1 or 2");
      c.blockLayout =
          norms == 2 ? BlockLayout::Parallel : BlockLayout::ParallelSharedNorm;
      return llvm::Error::success();
    }
    a.numKVHeads = *multiQuery ? 1 : a.numHeads;
    c.blockLayout =
        *parallel ? BlockLayout::ParallelSharedNorm : BlockLayout::Sequential;
    return llvm::Error::success();
  }

  static QkvOrder qkvOrder(const ConfigSource &config, const DecoderConfig &c) {
    auto newArchitecture = config.flag("new_decoder_architecture", false);
    if (newArchitecture && *newArchitecture)
      return QkvOrder::PerKvGroup;
    if (!newArchitecture)
      llvm::consumeError(newArchitecture.takeError());
    return c.attention.numKVHeads == 1 ? QkvOrder::Stacked : QkvOrder::PerHead;
  }

  /// llama.cpp's falcon: a second norm (attn_norm_2) makes the new
  /// architecture's two-norm layer; the head is tied when output.weight is
  /// absent.
  static llvm::Expected<DecoderConfig> readGgufConfig(const Checkpoint &file,
                                                      DecoderConfig c) {
    if (auto err = readGgufDecoderConfig(file, "falcon", c))
      return std::move(err);
    c.blockLayout = file.tensors.contains("blk.0.attn_norm_2.weight")
                        ? BlockLayout::Parallel
                        : BlockLayout::ParallelSharedNorm;
    bool biased = file.tensors.contains("blk.0.attn_qkv.bias");
    c.attention.qkvBias = c.attention.outputBias = c.mlpBias = biased;
    return c;
  }
};

} // namespace

const ModelFamily &tfmc::falconFamily() {
  static const FalconFamily family;
  return family;
}
