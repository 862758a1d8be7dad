//===- Llama2c.cpp - LLaMA in llama2.c checkpoints ------------------------===//
//
// The header fields and TransformerWeights of llama2.c (export.py's legacy
// format): w1 is the gate, w3 the up projection, w2 the down projection,
// each stacked over layers. RoPE rotates adjacent pairs; the stored
// frequency tables are not needed.
//
//===----------------------------------------------------------------------===//
#include "models/TensorMap.h"
#include "models/llama/Llama.h"

using namespace tfmc;

llvm::Expected<DecoderConfig>
tfmc::llama::readLlama2cConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture(RopeLayout::Interleaved);
  AttentionSettings &a = c.attention;
  for (auto [key, field] : {std::pair<const char *, int64_t *>{"dim", &c.dim},
                            {"hidden_dim", &c.hiddenDim},
                            {"n_layers", &c.numLayers},
                            {"n_heads", &a.numHeads},
                            {"n_kv_heads", &a.numKVHeads},
                            {"vocab_size", &c.vocabSize},
                            {"seq_len", &c.contextLength}})
    if (auto err = config.read(key, *field))
      return err;
  a.headDim = c.dim / a.numHeads;
  // run.c's constants.
  c.normEps = 1e-5f;
  c.ropeTheta = 10000.0f;
  auto shared = config.flag("shared_classifier", true);
  if (!shared)
    return shared.takeError();
  c.tiedEmbeddings = *shared;
  return c;
}

llvm::Expected<WeightMap>
tfmc::llama::mapLlama2cWeights(const Checkpoint &file,
                               const DecoderConfig &config) {
  auto stacked = [](const char *source, WeightRole role) {
    return TensorMapping{source,
                         {role},
                         /*transposed=*/false,
                         /*stackedOverLayers=*/true};
  };
  const TensorMapping layer[] = {
      stacked("rms_att_weight", WeightRole::AttnNormWeight),
      stacked("wq", WeightRole::Wq),
      stacked("wk", WeightRole::Wk),
      stacked("wv", WeightRole::Wv),
      stacked("wo", WeightRole::Wo),
      stacked("rms_ffn_weight", WeightRole::FfnNormWeight),
      stacked("w1", WeightRole::WGate),
      stacked("w2", WeightRole::WDown),
      stacked("w3", WeightRole::WUp),
  };
  std::vector<TensorMapping> global = {
      {"token_embedding_table", {WeightRole::TokenEmbedding}},
      {"rms_final_weight", {WeightRole::FinalNormWeight}}};
  if (!config.tiedEmbeddings)
    global.push_back({"wcls", {WeightRole::LmHead}});
  WeightMap weights;
  TensorTable &table = file.tensors;
  if (auto err = takeWeights(table, config, global, -1, weights))
    return err;
  for (int64_t l = 0; l < config.numLayers; ++l)
    if (auto err = takeWeights(table, config, layer, l, weights))
      return err;
  table.ignore("freq_cis_real");
  table.ignore("freq_cis_imag");
  return std::move(weights);
}
