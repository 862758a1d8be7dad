//===- HuggingFace.cpp - GPT-2 in Hugging Face directories ----------------===//
//
// config.json keys of GPT2Config; tensors of GPT2Model (or GPT2LMHeadModel,
// which prefixes them with "transformer."). Projections are Conv1D, stored
// [in, out], and c_attn holds Q, K and V one after the other along out.
//
//===----------------------------------------------------------------------===//
#include "models/TensorMap.h"
#include "models/gpt2/Gpt2.h"

using namespace tfmc;

llvm::Expected<DecoderConfig>
tfmc::gpt2::readHuggingFaceConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture();
  AttentionSettings &a = c.attention;
  if (auto err = config.read("n_embd", c.dim))
    return err;
  if (auto err = config.read("n_layer", c.numLayers))
    return err;
  if (auto err = config.read("n_head", a.numHeads))
    return err;
  a.numKVHeads = a.numHeads;
  if (c.dim % a.numHeads != 0)
    return llvm::createStringError(
        config.describe() + ": n_embd " + llvm::Twine(c.dim) +
        " is not divisible by n_head " + llvm::Twine(a.numHeads));
  a.headDim = c.dim / a.numHeads;
  if (auto err = config.read("vocab_size", c.vocabSize))
    return err;
  std::optional<int64_t> nCtx;
  if (config.isSet("n_ctx")) {
    int64_t value = 0;
    if (auto err = config.read("n_ctx", value))
      return err;
    nCtx = value;
  }
  if (auto err = config.readContextLength("n_positions", c.contextLength, nCtx))
    return err;
  if (auto err = config.read("n_inner", c.hiddenDim, 4 * c.dim))
    return err;
  if (auto err = config.read("layer_norm_epsilon", c.normEps, 1e-5))
    return err;
  auto activation =
      config.string("activation_function", std::string("gelu_new"));
  if (!activation)
    return activation.takeError();
  if (*activation != "gelu_new" && *activation != "gelu_pytorch_tanh")
    return llvm::createStringError("unsupported activation_function '" +
                                   *activation + "' in " + config.describe() +
                                   " (supported: gelu_new, gelu_pytorch_tanh)");
  return c;
}

llvm::Expected<WeightMap>
tfmc::gpt2::mapHuggingFaceWeights(const Checkpoint &file,
                                  const DecoderConfig &config) {
  using R = WeightRole;
  static const TensorMapping kLayer[] = {
      {"h.{layer}.ln_1.weight", {R::AttnNormWeight}},
      {"h.{layer}.ln_1.bias", {R::AttnNormBias}},
      {"h.{layer}.ln_2.weight", {R::FfnNormWeight}},
      {"h.{layer}.ln_2.bias", {R::FfnNormBias}},
      {"h.{layer}.attn.c_attn.weight", {R::Wq, R::Wk, R::Wv}, true},
      {"h.{layer}.attn.c_attn.bias", {R::Bq, R::Bk, R::Bv}},
      {"h.{layer}.attn.c_proj.weight", {R::Wo}, true},
      {"h.{layer}.attn.c_proj.bias", {R::Bo}},
      {"h.{layer}.mlp.c_fc.weight", {R::WUp}, true},
      {"h.{layer}.mlp.c_fc.bias", {R::BUp}},
      {"h.{layer}.mlp.c_proj.weight", {R::WDown}, true},
      {"h.{layer}.mlp.c_proj.bias", {R::BDown}},
  };
  TensorTable &table = file.tensors;
  std::string prefix =
      table.contains("transformer.wte.weight") ? "transformer." : "";
  WeightMap weights;
  if (auto err = takeWeights(table, config,
                             {{"wte.weight", {R::TokenEmbedding}},
                              {"wpe.weight", {R::PositionEmbedding}}},
                             -1, weights, prefix))
    return err;
  for (int64_t layer = 0; layer < config.numLayers; ++layer) {
    if (auto err = takeWeights(table, config, kLayer, layer, weights, prefix))
      return err;
    // Causal-mask buffers that some exports keep; the compiler builds its own.
    ignoreTensors(table, {"h.{layer}.attn.bias", "h.{layer}.attn.masked_bias"},
                  layer, prefix);
  }
  if (auto err = takeWeights(table, config,
                             {{"ln_f.weight", {R::FinalNormWeight}},
                              {"ln_f.bias", {R::FinalNormBias}}},
                             -1, weights, prefix))
    return err;
  // GPT-2's head is the embedding; a stored copy adds nothing.
  table.ignore("lm_head.weight");
  return std::move(weights);
}
