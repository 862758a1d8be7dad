//===- LlamaLayout.cpp - Hugging Face checkpoints in LLaMA's layout -------===//
#include "models/LlamaLayout.h"

#include "models/GgufLayout.h"
#include "models/HfConfigKeys.h"
#include "models/RopeScalingConfig.h"
#include "models/TensorMap.h"
#include "models/llama/Llama.h"

using namespace tfmc;

llvm::Error tfmc::expectActivation(const ConfigSource &config,
                                   llvm::StringRef key,
                                   llvm::StringRef expected,
                                   llvm::StringRef fallback) {
  auto activation = config.string(key, fallback.str());
  if (!activation)
    return activation.takeError();
  if (*activation != expected)
    return llvm::createStringError("unsupported " + key + " '" + *activation +
                                   "' in " + config.describe() +
                                   " (supported: " + expected + ")");
  return llvm::Error::success();
}

llvm::Error tfmc::readLlamaLayoutConfig(const Checkpoint &file,
                                        DecoderConfig &c,
                                        const LlamaLayoutDefaults &defaults) {
  const ConfigSource &config = file.config;
  AttentionSettings &a = c.attention;
  if (auto err = config.read("hidden_size", c.dim))
    return err;
  if (auto err = config.read("intermediate_size", c.hiddenDim))
    return err;
  if (auto err = config.read("num_hidden_layers", c.numLayers))
    return err;
  if (auto err = config.read("num_attention_heads", a.numHeads))
    return err;
  if (auto err = config.read("num_key_value_heads", a.numKVHeads, a.numHeads))
    return err;
  if (auto err = config.read("vocab_size", c.vocabSize))
    return err;
  if (auto err =
          config.readContextLength("max_position_embeddings", c.contextLength))
    return err;
  // A family with LayerNorms (StableLM) spells its epsilon as they do,
  // unless it has a spelling of its own (StarCoder2's norm_epsilon).
  const char *epsKey = defaults.normEpsKey             ? defaults.normEpsKey
                       : c.norm == NormKind::LayerNorm ? "layer_norm_eps"
                                                       : "rms_norm_eps";
  if (auto err = config.read(epsKey, c.normEps, defaults.normEps))
    return err;
  // transformers 5.x nests the base in rope_parameters, 4.x keeps
  // rope_theta at the top.
  if (auto err =
          readHfRopeBase(config, {"rope_parameters.rope_theta", "rope_theta"},
                         defaults.ropeTheta, c))
    return err;
  // A checkpoint without a head of its own ties it, unless config.json
  // says explicitly that it does not: then the head is missing.
  auto tied = config.flag("tie_word_embeddings", defaults.tiedEmbeddings);
  if (!tied)
    return tied.takeError();
  bool hasHead = file.tensors.contains("lm_head.weight");
  auto saysUntied = config.flag("tie_word_embeddings", true);
  if (!saysUntied)
    return saysUntied.takeError();
  if (!*saysUntied && !hasHead)
    return llvm::createStringError(
        config.describe() +
        " sets tie_word_embeddings to false, but the checkpoint holds no "
        "'lm_head.weight'");
  c.tiedEmbeddings = *tied || !hasHead;
  // head_dim may be given (and may differ from hidden_size / heads) or be
  // null, which means the quotient.
  int64_t fallbackHeadDim = defaults.headDim;
  if (!config.isSet("head_dim") && fallbackHeadDim == 0) {
    if (c.dim % a.numHeads != 0)
      return llvm::createStringError(
          config.describe() + ": dim " + llvm::Twine(c.dim) +
          " is not divisible by num_heads " + llvm::Twine(a.numHeads));
    fallbackHeadDim = c.dim / a.numHeads;
  }
  if (auto err = config.read("head_dim", a.headDim, fallbackHeadDim))
    return err;
  // transformers rotates part of each head wherever the config sets
  // partial_rotary_factor (StableLM's 0.25).
  if (auto err = readHfPartialRotary(
          config,
          {"partial_rotary_factor", "rope_parameters.partial_rotary_factor"},
          defaults.partialRotaryFactor, c))
    return err;
  return readHfRopeScaling(config, a.rotatedFeatures(), c);
}

llvm::Expected<bool> tfmc::readHfLayerTypes(const ConfigSource &config,
                                            DecoderConfig &c) {
  std::optional<uint64_t> listed = config.arraySize("layer_types");
  if (!listed)
    return false;
  if (int64_t(*listed) != c.numLayers)
    return llvm::createStringError("layer_types in " + config.describe() +
                                   " lists " + llvm::Twine(*listed) +
                                   " layers but num_hidden_layers is " +
                                   llvm::Twine(c.numLayers));
  std::vector<bool> &full = c.attention.fullAttentionLayers;
  full.assign(size_t(c.numLayers), false);
  for (int64_t layer = 0; layer < c.numLayers; ++layer) {
    std::string key = "layer_types." + std::to_string(layer);
    auto kind = config.string(key);
    if (!kind)
      return kind.takeError();
    if (*kind != "full_attention" && *kind != "sliding_attention")
      return llvm::createStringError(
          "unsupported " + key + " '" + *kind + "' in " + config.describe() +
          " (supported: full_attention, sliding_attention)");
    full[size_t(layer)] = *kind == "full_attention";
  }
  return true;
}

llvm::Error tfmc::readQwenSlidingWindow(const ConfigSource &config,
                                        DecoderConfig &c) {
  auto windowed = config.flag("use_sliding_window", false);
  if (!windowed)
    return windowed.takeError();
  // Without it, transformers drops sliding_window: every layer is full.
  if (!*windowed)
    return llvm::Error::success();
  AttentionSettings &a = c.attention;
  if (!config.isSet("sliding_window"))
    return llvm::createStringError(
        "use_sliding_window in " + config.describe() +
        " needs a sliding_window (the window's positions)");
  if (auto err = config.read("sliding_window", a.slidingWindow))
    return err;
  auto listed = readHfLayerTypes(config, c);
  if (!listed)
    return listed.takeError();
  if (*listed)
    return llvm::Error::success();
  a.fullAttentionLayers.assign(size_t(c.numLayers), false);
  // Qwen2Config's default is 28; 0 windows every layer.
  auto fullLayers = config.nonNegative("max_window_layers", 28);
  if (!fullLayers)
    return fullLayers.takeError();
  for (int64_t layer = 0; layer < std::min(*fullLayers, c.numLayers); ++layer)
    a.fullAttentionLayers[size_t(layer)] = true;
  return llvm::Error::success();
}

/// Mixtral's router and experts: `block_sparse_moe.experts.{e}.w1` (gate),
/// `w3` (up), `w2` (down).
static llvm::Error takeExperts(TensorTable &table, const DecoderConfig &config,
                               int64_t layer, WeightMap &weights) {
  static const TensorMapping kRouter[] = {
      {"model.layers.{layer}.block_sparse_moe.gate.weight",
       {WeightRole::Router}},
  };
  if (auto err = takeWeights(table, config, kRouter, layer, weights))
    return err;
  struct Matrix {
    const char *file;
    WeightRole role;
  };
  static const Matrix kMatrices[] = {{"w1", WeightRole::ExpertGate},
                                     {"w3", WeightRole::ExpertUp},
                                     {"w2", WeightRole::ExpertDown}};
  std::string prefix =
      tensorName("model.layers.{layer}.block_sparse_moe.experts.", layer);
  for (int64_t expert = 0; expert < config.moe.experts; ++expert)
    for (const Matrix &matrix : kMatrices) {
      std::string name =
          prefix + std::to_string(expert) + "." + matrix.file + ".weight";
      auto view = table.take(name, weightShape(config, matrix.role));
      if (!view)
        return view.takeError();
      weights[expertWeightName(matrix.role, layer, expert)] =
          weights::Weight(*view, name);
    }
  return llvm::Error::success();
}

/// A LLaMA-layout layer's norm: its tensors (a LayerNorm's bias too) and
/// their roles.
struct LayerNormTensors {
  TensorMapping weight, bias;
};

static std::vector<LayerNormTensors> layerNorms(const DecoderConfig &config) {
  using R = WeightRole;
  auto norm = [](const char *weight, R weightRole, const char *bias,
                 R biasRole) {
    return LayerNormTensors{{weight, {weightRole}}, {bias, {biasRole}}};
  };
  LayerNormTensors input =
      norm("model.layers.{layer}.input_layernorm.weight", R::AttnNormWeight,
           "model.layers.{layer}.input_layernorm.bias", R::AttnNormBias);
  // Before the MLP in LLaMA; after attention in Gemma 2 and 3 and OLMo-2.
  auto postAttention = [&](R weightRole, R biasRole) {
    return norm("model.layers.{layer}.post_attention_layernorm.weight",
                weightRole,
                "model.layers.{layer}.post_attention_layernorm.bias", biasRole);
  };
  LayerNormTensors preFeedForward = norm(
      "model.layers.{layer}.pre_feedforward_layernorm.weight", R::FfnNormWeight,
      "model.layers.{layer}.pre_feedforward_layernorm.bias", R::FfnNormBias);
  LayerNormTensors postFeedForward =
      norm("model.layers.{layer}.post_feedforward_layernorm.weight",
           R::PostFfnNormWeight,
           "model.layers.{layer}.post_feedforward_layernorm.bias",
           R::PostFfnNormBias);
  switch (config.normPlacement) {
  case NormPlacement::PreNorm:
  case NormPlacement::PostNorm:
    // A layer whose one norm feeds attention and MLP has no second norm.
    if (config.blockLayout == BlockLayout::ParallelSharedNorm)
      return {input};
    return {input, postAttention(R::FfnNormWeight, R::FfnNormBias)};
  case NormPlacement::Sandwich:
    return {input, postAttention(R::PostAttnNormWeight, R::PostAttnNormBias),
            preFeedForward, postFeedForward};
  case NormPlacement::PostSublayer:
    return {postAttention(R::PostAttnNormWeight, R::PostAttnNormBias),
            postFeedForward};
  }
  return {};
}

llvm::Expected<WeightMap>
tfmc::mapLlamaLayoutWeights(const Checkpoint &file, const DecoderConfig &config,
                            FusedProjections fused) {
  static const TensorMapping kAttention[] = {
      {"model.layers.{layer}.self_attn.q_proj.weight", {WeightRole::Wq}},
      {"model.layers.{layer}.self_attn.k_proj.weight", {WeightRole::Wk}},
      {"model.layers.{layer}.self_attn.v_proj.weight", {WeightRole::Wv}},
      {"model.layers.{layer}.self_attn.o_proj.weight", {WeightRole::Wo}},
  };
  // Phi-3: Q's rows, then K's, then V's.
  static const TensorMapping kFusedAttention[] = {
      {"model.layers.{layer}.self_attn.qkv_proj.weight",
       {WeightRole::Wq, WeightRole::Wk, WeightRole::Wv}},
      {"model.layers.{layer}.self_attn.o_proj.weight", {WeightRole::Wo}},
  };
  // LayerNorm families (StableLM) store biases beside the norm weights.
  std::vector<TensorMapping> norms;
  for (const LayerNormTensors &norm : layerNorms(config)) {
    norms.push_back(norm.weight);
    if (config.norm == NormKind::LayerNorm)
      norms.push_back(norm.bias);
  }
  static const TensorMapping kMlp[] = {
      {"model.layers.{layer}.mlp.gate_proj.weight", {WeightRole::WGate}},
      {"model.layers.{layer}.mlp.up_proj.weight", {WeightRole::WUp}},
      {"model.layers.{layer}.mlp.down_proj.weight", {WeightRole::WDown}},
  };
  // Phi-3: the gate's rows, then the up projection's.
  static const TensorMapping kFusedMlp[] = {
      {"model.layers.{layer}.mlp.gate_up_proj.weight",
       {WeightRole::WGate, WeightRole::WUp}},
      {"model.layers.{layer}.mlp.down_proj.weight", {WeightRole::WDown}},
  };
  static const TensorMapping kGatedMlpBiases[] = {
      {"model.layers.{layer}.mlp.gate_proj.bias", {WeightRole::BGate}},
      {"model.layers.{layer}.mlp.up_proj.bias", {WeightRole::BUp}},
      {"model.layers.{layer}.mlp.down_proj.bias", {WeightRole::BDown}},
  };
  // An ungated MLP (StarCoder2's): c_fc, the activation, c_proj.
  static const TensorMapping kPlainMlp[] = {
      {"model.layers.{layer}.mlp.c_fc.weight", {WeightRole::WUp}},
      {"model.layers.{layer}.mlp.c_proj.weight", {WeightRole::WDown}},
  };
  static const TensorMapping kPlainMlpBiases[] = {
      {"model.layers.{layer}.mlp.c_fc.bias", {WeightRole::BUp}},
      {"model.layers.{layer}.mlp.c_proj.bias", {WeightRole::BDown}},
  };
  bool gated = config.mlp == MlpKind::SwiGLU || config.mlp == MlpKind::GeGLU;
  llvm::ArrayRef<TensorMapping> mlp = !gated         ? llvm::ArrayRef(kPlainMlp)
                                      : fused.gateUp ? llvm::ArrayRef(kFusedMlp)
                                                     : llvm::ArrayRef(kMlp);
  llvm::ArrayRef<TensorMapping> mlpBiases =
      gated ? llvm::ArrayRef(kGatedMlpBiases) : llvm::ArrayRef(kPlainMlpBiases);
  static const TensorMapping kQkvBiases[] = {
      {"model.layers.{layer}.self_attn.q_proj.bias", {WeightRole::Bq}},
      {"model.layers.{layer}.self_attn.k_proj.bias", {WeightRole::Bk}},
      {"model.layers.{layer}.self_attn.v_proj.bias", {WeightRole::Bv}},
  };
  static const TensorMapping kQkNorms[] = {
      {"model.layers.{layer}.self_attn.q_norm.weight",
       {WeightRole::QNormWeight}},
      {"model.layers.{layer}.self_attn.k_norm.weight",
       {WeightRole::KNormWeight}},
  };
  WeightMap weights;
  TensorTable &table = file.tensors;
  bool layerNorm = config.norm == NormKind::LayerNorm;
  if (auto err = takeWeights(
          table, config,
          {{"model.embed_tokens.weight", {WeightRole::TokenEmbedding}}}, -1,
          weights))
    return err;
  for (int64_t layer = 0; layer < config.numLayers; ++layer) {
    if (auto err = takeWeights(table, config,
                               fused.qkv ? llvm::ArrayRef(kFusedAttention)
                                         : llvm::ArrayRef(kAttention),
                               layer, weights))
      return err;
    if (auto err = takeWeights(table, config, norms, layer, weights))
      return err;
    if (config.moe.experts == 0) {
      if (auto err = takeWeights(table, config, mlp, layer, weights))
        return err;
      if (config.mlpBias)
        if (auto err = takeWeights(table, config, mlpBiases, layer, weights))
          return err;
    } else if (auto err = takeExperts(table, config, layer, weights)) {
      return err;
    }
    if (config.attention.qkvBias)
      if (auto err = takeWeights(table, config, kQkvBiases, layer, weights))
        return err;
    if (config.attention.outputBias)
      if (auto err = takeWeights(table, config,
                                 {{"model.layers.{layer}.self_attn.o_proj.bias",
                                   {WeightRole::Bo}}},
                                 layer, weights))
        return err;
    if (config.attention.qkNorm == QkNorm::PerHeadLayerNorm) {
      // StableLM 2 12B: a LayerNorm module per head.
      if (auto err = takeHeadParts(
              table, config,
              "model.layers.{layer}.self_attn.q_layernorm.norms.{head}.weight",
              WeightRole::QNormWeight, layer, weights))
        return err;
      if (auto err = takeHeadParts(
              table, config,
              "model.layers.{layer}.self_attn.k_layernorm.norms.{head}.weight",
              WeightRole::KNormWeight, layer, weights))
        return err;
    } else if (config.attention.qkNorm != QkNorm::None) {
      if (auto err = takeWeights(table, config, kQkNorms, layer, weights))
        return err;
    }
    // Older exports store RoPE frequencies; the compiler derives them.
    ignoreTensors(table, {"model.layers.{layer}.self_attn.rotary_emb.inv_freq"},
                  layer);
  }
  if (auto err = takeWeights(
          table, config, {{"model.norm.weight", {WeightRole::FinalNormWeight}}},
          -1, weights))
    return err;
  if (layerNorm)
    if (auto err = takeWeights(
            table, config, {{"model.norm.bias", {WeightRole::FinalNormBias}}},
            -1, weights))
      return err;
  if (auto err = takeLmHead(table, config, weights))
    return err;
  return std::move(weights);
}

llvm::Expected<DecoderConfig>
LlamaLayoutFamily::readConfig(const Checkpoint &file) const {
  DecoderConfig c = architecture();
  if (file.format == CheckpointFormat::Gguf) {
    if (auto err = readGgufDecoderConfig(file, ggufArchitecture(), c))
      return std::move(err);
    if (auto err = adaptToGguf(file, c))
      return std::move(err);
    return c;
  }
  if (auto err = readLlamaLayoutConfig(file, c, defaults()))
    return std::move(err);
  if (auto err = readOwnKeys(file.config, c))
    return std::move(err);
  return c;
}

llvm::Expected<WeightMap>
LlamaLayoutFamily::mapWeights(const Checkpoint &file,
                              const DecoderConfig &config) const {
  if (file.format == CheckpointFormat::Gguf)
    return mapGgufDecoderWeights(file, config, fusedProjections());
  return mapLlamaLayoutWeights(file, config, fusedProjections());
}

TokenizerSpec LlamaLayoutFamily::presetTokenizer() const {
  return llama::presetTokenizer();
}

Preset LlamaLayoutFamily::preset(const char *name, int64_t dim, int64_t hidden,
                                 int64_t layers, int64_t heads, int64_t kvHeads,
                                 int64_t headDim, int64_t vocab,
                                 int64_t context) const {
  return sizedPreset(name, architecture(), dim, hidden, layers, heads, kvHeads,
                     headDim, vocab, context);
}
