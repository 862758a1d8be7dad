//===- HuggingFace.cpp - LLaMA in Hugging Face directories ----------------===//
//
// config.json keys of LlamaConfig; tensors of LlamaForCausalLM, already
// [out, in]. Hugging Face rotates the halves of each head (half-split RoPE).
//
//===----------------------------------------------------------------------===//
#include "models/TensorMap.h"
#include "models/llama/Llama.h"

using namespace tfmc;

llvm::Expected<DecoderConfig>
tfmc::llama::readHuggingFaceConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture(RopeLayout::HalfSplit);
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
  if (auto err = config.read("max_position_embeddings", c.contextLength))
    return err;
  if (auto err = config.read("rms_norm_eps", c.normEps, 1e-6))
    return err;
  if (auto err = config.read("rope_theta", c.ropeTheta, 10000.0))
    return err;
  // A checkpoint without a head of its own ties it, whatever config.json says.
  auto tied = config.flag("tie_word_embeddings", false);
  if (!tied)
    return tied.takeError();
  c.tiedEmbeddings = *tied || !file.tensors.contains("lm_head.weight");
  auto activation = config.string("hidden_act", std::string("silu"));
  if (!activation)
    return activation.takeError();
  if (*activation != "silu")
    return llvm::createStringError("unsupported hidden_act '" + *activation +
                                   "' in " + config.describe() +
                                   " (supported: silu)");
  for (const char *key : {"rope_scaling", "attention_bias", "mlp_bias"})
    if (config.isSet(key))
      return llvm::createStringError(llvm::Twine(key) + " in " +
                                     config.describe() + " is not supported");
  if (auto err = config.read("head_dim", a.headDim, c.dim / a.numHeads))
    return err;
  return c;
}

llvm::Expected<WeightMap>
tfmc::llama::mapHuggingFaceWeights(const Checkpoint &file,
                                   const DecoderConfig &config) {
  static const TensorMapping kLayer[] = {
      {"model.layers.{layer}.input_layernorm.weight",
       {WeightRole::AttnNormWeight}},
      {"model.layers.{layer}.self_attn.q_proj.weight", {WeightRole::Wq}},
      {"model.layers.{layer}.self_attn.k_proj.weight", {WeightRole::Wk}},
      {"model.layers.{layer}.self_attn.v_proj.weight", {WeightRole::Wv}},
      {"model.layers.{layer}.self_attn.o_proj.weight", {WeightRole::Wo}},
      {"model.layers.{layer}.post_attention_layernorm.weight",
       {WeightRole::FfnNormWeight}},
      {"model.layers.{layer}.mlp.gate_proj.weight", {WeightRole::WGate}},
      {"model.layers.{layer}.mlp.up_proj.weight", {WeightRole::WUp}},
      {"model.layers.{layer}.mlp.down_proj.weight", {WeightRole::WDown}},
  };
  WeightMap weights;
  TensorTable &table = file.tensors;
  if (auto err = takeWeights(
          table, config,
          {{"model.embed_tokens.weight", {WeightRole::TokenEmbedding}}}, -1,
          weights))
    return err;
  for (int64_t layer = 0; layer < config.numLayers; ++layer) {
    if (auto err = takeWeights(table, config, kLayer, layer, weights))
      return err;
    // Older exports store RoPE frequencies; the compiler derives them.
    ignoreTensors(table, {"model.layers.{layer}.self_attn.rotary_emb.inv_freq"},
                  layer);
  }
  if (auto err = takeWeights(
          table, config, {{"model.norm.weight", {WeightRole::FinalNormWeight}}},
          -1, weights))
    return err;
  if (config.tiedEmbeddings) {
    table.ignore("lm_head.weight");
    return std::move(weights);
  }
  if (auto err =
          takeWeights(table, config, {{"lm_head.weight", {WeightRole::LmHead}}},
                      -1, weights))
    return err;
  return std::move(weights);
}
