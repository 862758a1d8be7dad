//===- GgufLayout.cpp - Decoder checkpoints in llama.cpp's GGUF layout ----===//
#include "models/GgufLayout.h"

#include "models/RopeScalingConfig.h"
#include "models/TensorMap.h"

using namespace tfmc;

namespace {

/// llama.cpp's metadata key `name` of `architecture`.
std::string key(llvm::StringRef architecture, llvm::StringRef name) {
  return (architecture + "." + name).str();
}

/// The vocabulary size: the tokenizer's when present, else the embedding's.
llvm::Expected<int64_t> vocabSize(const Checkpoint &file) {
  if (std::optional<uint64_t> tokens =
          file.config.arraySize("tokenizer.ggml.tokens"))
    return static_cast<int64_t>(*tokens);
  const TensorEntry *embedding = file.tensors.find("token_embd.weight");
  if (!embedding)
    return llvm::createStringError(file.tensors.describe() +
                                   " lacks tensor 'token_embd.weight'");
  if (embedding->shape.size() != 2)
    return llvm::createStringError(
        file.tensors.describe() +
        ": tensor 'token_embd.weight' must have 2 dimensions");
  return embedding->shape[0];
}

llvm::Error fail(const ConfigSource &config, const llvm::Twine &message) {
  return llvm::createStringError(config.describe() + ": " + message);
}

/// The head size: `attention.key_length` (Gemma's differs from the
/// quotient), else embedding_length / head_count, which must divide. Values
/// of another size than keys are not supported.
llvm::Error readHeadDim(const ConfigSource &config, llvm::StringRef arch,
                        const DecoderConfig &c, int64_t &headDim) {
  std::string keyLength = key(arch, "attention.key_length");
  std::string valueLength = key(arch, "attention.value_length");
  if (config.isSet(keyLength)) {
    if (auto err = config.read(keyLength, headDim))
      return err;
  } else {
    if (c.dim % c.attention.numHeads != 0)
      return fail(config, key(arch, "embedding_length") + " " +
                              llvm::Twine(c.dim) + " is not divisible by " +
                              key(arch, "attention.head_count") + " " +
                              llvm::Twine(c.attention.numHeads));
    headDim = c.dim / c.attention.numHeads;
  }
  int64_t valueDim = 0;
  if (auto err = config.read(valueLength, valueDim, headDim))
    return err;
  if (valueDim != headDim)
    return fail(config, valueLength + " " + llvm::Twine(valueDim) +
                            " differs from the key size " +
                            llvm::Twine(headDim) + "; not supported");
  return llvm::Error::success();
}

/// The experts of a mixture (`expert_count` > 0): how many, and how many
/// each token uses. llama.cpp weighs the chosen experts by the softmax over
/// their router logits (Mixtral).
llvm::Error readExperts(const ConfigSource &config, llvm::StringRef arch,
                        DecoderConfig &c) {
  std::string count = key(arch, "expert_count");
  std::string used = key(arch, "expert_used_count");
  if (!config.isSet(count))
    return llvm::Error::success();
  if (auto err = config.read(count, c.moe.experts))
    return err;
  if (auto err = config.read(used, c.moe.topK))
    return err;
  if (c.moe.topK > c.moe.experts)
    return fail(config, used + " " + llvm::Twine(c.moe.topK) + " exceeds " +
                            count + " " + llvm::Twine(c.moe.experts));
  if (c.mlp != MlpKind::SwiGLU)
    return fail(config, "experts of a non-SwiGLU feed-forward (" + count +
                            ") are not supported");
  c.moe.routing = ExpertRouting::TopKSoftmax;
  return llvm::Error::success();
}

} // namespace

llvm::Error tfmc::readGgufDecoderConfig(const Checkpoint &file,
                                        llvm::StringRef arch,
                                        DecoderConfig &c) {
  const ConfigSource &config = file.config;
  // Keys that change the math in llama.cpp and that tfmc does not apply to
  // these architectures: refused by name rather than ignored
  // (docs/gguf-metadata.md).
  AttentionSettings &a = c.attention;
  // Soft caps are read for the architectures that have them (Gemma 2's
  // blocks come capped), as llama.cpp does, and refused elsewhere.
  bool capped = a.softcap > 0 || c.finalLogitSoftcap > 0;
  for (const char *name :
       {"rope.scaling.yarn_log_multiplier", "attention.scale",
        "attn_logit_softcapping", "final_logit_softcapping", "logit_scale",
        "embedding_scale", "residual_scale"}) {
    bool softcap = llvm::StringRef(name).ends_with("softcapping");
    if (config.isSet(key(arch, name)) && !(capped && softcap))
      return fail(config, "metadata key '" + key(arch, name) +
                              "' is set, which tfmc does not apply");
  }
  // Where the file does not state a cap, the architecture's stands.
  if (auto err = config.read(key(arch, "attn_logit_softcapping"), a.softcap,
                             double(a.softcap)))
    return err;
  if (auto err = config.read(key(arch, "final_logit_softcapping"),
                             c.finalLogitSoftcap, double(c.finalLogitSoftcap)))
    return err;
  if (auto err = config.read(key(arch, "embedding_length"), c.dim))
    return err;
  if (auto err = config.read(key(arch, "feed_forward_length"), c.hiddenDim))
    return err;
  if (auto err = config.read(key(arch, "block_count"), c.numLayers))
    return err;
  if (auto err = config.read(key(arch, "attention.head_count"), a.numHeads))
    return err;
  if (auto err = config.read(key(arch, "attention.head_count_kv"), a.numKVHeads,
                             a.numHeads))
    return err;
  if (auto err = config.readContextLength(key(arch, "context_length"),
                                          c.contextLength))
    return err;
  if (auto err = config.read(key(arch, c.norm == NormKind::RMSNorm
                                           ? "attention.layer_norm_rms_epsilon"
                                           : "attention.layer_norm_epsilon"),
                             c.normEps))
    return err;
  if (auto err = readHeadDim(config, arch, c, a.headDim))
    return err;
  if (c.position == PositionKind::Rope) {
    if (auto err =
            config.read(key(arch, "rope.freq_base"), c.ropeTheta, 10000.0))
      return err;
    int64_t ropeDim = 0;
    std::string ropeKey = key(arch, "rope.dimension_count");
    if (auto err = config.read(ropeKey, ropeDim, a.headDim))
      return err;
    // Fewer than the head's features: a partial RoPE (GPT-NeoX, Phi-2).
    if (ropeDim > a.headDim || ropeDim % 2 != 0)
      return fail(config, ropeKey + " " + llvm::Twine(ropeDim) +
                              " must be even and at most the head size " +
                              llvm::Twine(a.headDim));
    a.rotaryDim = ropeDim == a.headDim ? 0 : ropeDim;
    if (auto err = readGgufRopeScaling(file, arch, ropeDim, c))
      return err;
  }
  if (auto err = readExperts(config, arch, c))
    return err;
  auto vocab = vocabSize(file);
  if (!vocab)
    return vocab.takeError();
  c.vocabSize = *vocab;
  // llama.cpp writes {arch}.vocab_size for some models; it must agree.
  std::string vocabKey = key(arch, "vocab_size");
  if (config.isSet(vocabKey)) {
    int64_t stated = 0;
    if (auto err = config.read(vocabKey, stated))
      return err;
    if (stated != c.vocabSize)
      return fail(config, vocabKey + " " + llvm::Twine(stated) +
                              " differs from the vocabulary of " +
                              llvm::Twine(c.vocabSize) +
                              " tokens the file holds");
  }
  c.tiedEmbeddings = !file.tensors.contains("output.weight");
  return llvm::Error::success();
}

namespace {

/// A mixture's router and experts in layer `layer`.
llvm::Error takeExperts(TensorTable &table, const DecoderConfig &config,
                        int64_t layer, WeightMap &weights) {
  if (auto err = takeWeights(
          table, config,
          {{"blk.{layer}.ffn_gate_inp.weight", {WeightRole::Router}}}, layer,
          weights))
    return err;
  struct Matrix {
    const char *file;
    WeightRole role;
  };
  static const Matrix kMatrices[] = {{"gate", WeightRole::ExpertGate},
                                     {"up", WeightRole::ExpertUp},
                                     {"down", WeightRole::ExpertDown}};
  std::string prefix = tensorName("blk.{layer}.ffn_", layer);
  for (const Matrix &matrix : kMatrices) {
    weights::Shape one = weightShape(config, matrix.role);
    std::string merged = prefix + matrix.file + "_exps.weight";
    // Files since llama.cpp's merged experts: one [experts, out, in] tensor.
    if (table.contains(merged)) {
      weights::Shape all = {config.moe.experts, one[0], one[1]};
      auto view = table.take(merged, all);
      if (!view)
        return view.takeError();
      for (int64_t expert = 0; expert < config.moe.experts; ++expert)
        weights[expertWeightName(matrix.role, layer, expert)] =
            weights::Weight(view->select(expert), merged);
      continue;
    }
    for (int64_t expert = 0; expert < config.moe.experts; ++expert) {
      std::string name =
          prefix + matrix.file + "." + std::to_string(expert) + ".weight";
      auto view = table.take(name, one);
      if (!view)
        return view.takeError();
      weights[expertWeightName(matrix.role, layer, expert)] =
          weights::Weight(*view, name);
    }
  }
  return llvm::Error::success();
}

/// The weight and, for a LayerNorm, the bias of the norm `name`.
std::vector<TensorMapping> norm(const DecoderConfig &config, const char *weight,
                                const char *bias, WeightRole weightRole,
                                WeightRole biasRole) {
  std::vector<TensorMapping> mappings = {{weight, {weightRole}}};
  if (config.norm == NormKind::LayerNorm)
    mappings.push_back({bias, {biasRole}});
  return mappings;
}

} // namespace

llvm::Expected<WeightMap>
tfmc::mapGgufDecoderWeights(const Checkpoint &file, const DecoderConfig &config,
                            FusedProjections fused) {
  using R = WeightRole;
  const AttentionSettings &a = config.attention;
  std::vector<TensorMapping> global = {
      {"token_embd.weight", {R::TokenEmbedding}}};
  if (config.embeddingLayerNorm)
    for (TensorMapping &m :
         norm(config, "token_embd_norm.weight", "token_embd_norm.bias",
              R::EmbeddingNormWeight, R::EmbeddingNormBias))
      global.push_back(m);
  for (TensorMapping &m : norm(config, "output_norm.weight", "output_norm.bias",
                               R::FinalNormWeight, R::FinalNormBias))
    global.push_back(m);
  if (!config.tiedEmbeddings)
    global.push_back({"output.weight", {R::LmHead}});
  if (config.lmHeadBias)
    global.push_back({"output.bias", {R::LmHeadBias}});

  // OLMo-2 norms the sublayers' outputs only.
  bool inputNorms = normsSublayerInputs(config.normPlacement);
  std::vector<TensorMapping> layer;
  if (inputNorms)
    layer =
        norm(config, "blk.{layer}.attn_norm.weight",
             "blk.{layer}.attn_norm.bias", R::AttnNormWeight, R::AttnNormBias);
  if (fused.qkv) {
    layer.push_back({"blk.{layer}.attn_qkv.weight", {R::Wq, R::Wk, R::Wv}});
    if (a.qkvBias)
      layer.push_back({"blk.{layer}.attn_qkv.bias", {R::Bq, R::Bk, R::Bv}});
  } else {
    layer.push_back({"blk.{layer}.attn_q.weight", {R::Wq}});
    layer.push_back({"blk.{layer}.attn_k.weight", {R::Wk}});
    layer.push_back({"blk.{layer}.attn_v.weight", {R::Wv}});
    if (a.qkvBias) {
      layer.push_back({"blk.{layer}.attn_q.bias", {R::Bq}});
      layer.push_back({"blk.{layer}.attn_k.bias", {R::Bk}});
      layer.push_back({"blk.{layer}.attn_v.bias", {R::Bv}});
    }
  }
  if (a.qkNorm != QkNorm::None) {
    // StableLM 2 12B's per-head norms are stored [heads, head_dim].
    TensorMapping q{"blk.{layer}.attn_q_norm.weight", {R::QNormWeight}};
    TensorMapping k{"blk.{layer}.attn_k_norm.weight", {R::KNormWeight}};
    q.headRows = k.headRows = a.qkNorm == QkNorm::PerHeadLayerNorm;
    layer.push_back(q);
    layer.push_back(k);
  }
  layer.push_back({"blk.{layer}.attn_output.weight", {R::Wo}});
  if (a.outputBias)
    layer.push_back({"blk.{layer}.attn_output.bias", {R::Bo}});
  // One norm feeds both branches of a shared-norm parallel layer (Phi-2).
  if (inputNorms && config.blockLayout != BlockLayout::ParallelSharedNorm)
    for (TensorMapping &m :
         norm(config, "blk.{layer}.ffn_norm.weight",
              "blk.{layer}.ffn_norm.bias", R::FfnNormWeight, R::FfnNormBias))
      layer.push_back(m);
  // Gemma 2 and 3 and OLMo-2 norm each sublayer's output.
  if (normsSublayerOutputs(config.normPlacement)) {
    for (TensorMapping &m :
         norm(config, "blk.{layer}.post_attention_norm.weight",
              "blk.{layer}.post_attention_norm.bias", R::PostAttnNormWeight,
              R::PostAttnNormBias))
      layer.push_back(m);
    for (TensorMapping &m : norm(config, "blk.{layer}.post_ffw_norm.weight",
                                 "blk.{layer}.post_ffw_norm.bias",
                                 R::PostFfnNormWeight, R::PostFfnNormBias))
      layer.push_back(m);
  }
  if (config.moe.experts == 0) {
    bool gated = config.mlp == MlpKind::SwiGLU || config.mlp == MlpKind::GeGLU;
    // Phi-3's ffn_up holds the gate's rows, then the up projection's.
    bool fusedGateUp = gated && fused.gateUp;
    if (fusedGateUp) {
      layer.push_back({"blk.{layer}.ffn_up.weight", {R::WGate, R::WUp}});
    } else {
      if (gated)
        layer.push_back({"blk.{layer}.ffn_gate.weight", {R::WGate}});
      layer.push_back({"blk.{layer}.ffn_up.weight", {R::WUp}});
    }
    layer.push_back({"blk.{layer}.ffn_down.weight", {R::WDown}});
    if (config.mlpBias) {
      if (fusedGateUp) {
        layer.push_back({"blk.{layer}.ffn_up.bias", {R::BGate, R::BUp}});
      } else {
        if (gated)
          layer.push_back({"blk.{layer}.ffn_gate.bias", {R::BGate}});
        layer.push_back({"blk.{layer}.ffn_up.bias", {R::BUp}});
      }
      layer.push_back({"blk.{layer}.ffn_down.bias", {R::BDown}});
    }
  }

  TensorTable &table = file.tensors;
  WeightMap weights;
  if (auto err = takeWeights(table, config, global, -1, weights))
    return std::move(err);
  for (int64_t i = 0; i < config.numLayers; ++i) {
    if (auto err = takeWeights(table, config, layer, i, weights))
      return std::move(err);
    if (config.moe.experts > 0)
      if (auto err = takeExperts(table, config, i, weights))
        return std::move(err);
  }
  return std::move(weights);
}
