//===- Gguf.cpp - T5 in llama.cpp's GGUF layout (architecture t5) ---------===//
//
// llama.cpp's converter writes T5ForConditionalGeneration with its t5.*
// keys (the encoder's block_count, decoder_block_count when the stacks
// differ, key_length for d_kv, relative_buckets_count,
// layer_norm_rms_epsilon, decoder_start_token_id) and tensors
//   token_embd, output (absent when tied),
//   enc.blk.N.attn_{norm,q,k,v,o}, enc.blk.0.attn_rel_b,
//   enc.blk.N.ffn_{norm,gate,up,down}, enc.output_norm,
//   dec.blk.N.attn_{norm,q,k,v,o}, dec.blk.0.attn_rel_b,
//   dec.blk.N.cross_attn_{norm,q,k,v,o}, dec.blk.N.ffn_{norm,gate,up,down},
//   dec.output_norm.
// GGUF records neither the feed-forward kind nor the maximum relative
// distance: a gate tensor means gated GELU (v1.1), none ReLU (v1.0), and
// the distance is T5Config's default, 128, as llama.cpp assumes.
//
//===----------------------------------------------------------------------===//
#include "models/TensorMap.h"
#include "models/t5/T5.h"

using namespace tfmc;

namespace {

/// The maximum relative distance llama.cpp's T5 uses (not in the file).
constexpr int64_t kMaxDistance = 128;

llvm::Error takeGgufStack(TensorTable &table, const DecoderConfig &config,
                          bool decoder, WeightMap &weights) {
  using R = WeightRole;
  static const TensorMapping kBlock[] = {
      {"blk.{layer}.attn_norm.weight", {R::AttnNormWeight}},
      {"blk.{layer}.attn_q.weight", {R::Wq}},
      {"blk.{layer}.attn_k.weight", {R::Wk}},
      {"blk.{layer}.attn_v.weight", {R::Wv}},
      {"blk.{layer}.attn_o.weight", {R::Wo}},
      {"blk.{layer}.ffn_norm.weight", {R::FfnNormWeight}},
      {"blk.{layer}.ffn_up.weight", {R::WUp}},
      {"blk.{layer}.ffn_down.weight", {R::WDown}},
  };
  static const TensorMapping kGate[] = {
      {"blk.{layer}.ffn_gate.weight", {R::WGate}},
  };
  static const TensorMapping kCross[] = {
      {"blk.{layer}.cross_attn_norm.weight", {R::CrossAttnNormWeight}},
      {"blk.{layer}.cross_attn_q.weight", {R::CrossWq}},
      {"blk.{layer}.cross_attn_k.weight", {R::CrossWk}},
      {"blk.{layer}.cross_attn_v.weight", {R::CrossWv}},
      {"blk.{layer}.cross_attn_o.weight", {R::CrossWo}},
  };
  std::string prefix = decoder ? "dec." : "enc.";
  WeightMap own;
  if (auto err = takeWeights(table, config,
                             {{"blk.0.attn_rel_b.weight", {R::RelativeBias}},
                              {"output_norm.weight", {R::FinalNormWeight}}},
                             -1, own, prefix))
    return err;
  int64_t layers = decoder ? config.numDecoderLayers : config.numLayers;
  for (int64_t layer = 0; layer < layers; ++layer) {
    if (auto err = takeWeights(table, config, kBlock, layer, own, prefix))
      return err;
    if (config.mlp == MlpKind::GeGLU)
      if (auto err = takeWeights(table, config, kGate, layer, own, prefix))
        return err;
    if (decoder)
      if (auto err = takeWeights(table, config, kCross, layer, own, prefix))
        return err;
  }
  std::string stack = decoder ? "decoder" : "encoder";
  for (auto &[name, weight] : own)
    weights[stackWeightName(stack, name)] = std::move(weight);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<DecoderConfig> tfmc::t5::readGgufConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture();
  AttentionSettings &a = c.attention;
  if (auto err = config.read("t5.embedding_length", c.dim))
    return err;
  if (auto err = config.read("t5.feed_forward_length", c.hiddenDim))
    return err;
  if (auto err = config.read("t5.block_count", c.numLayers))
    return err;
  if (auto err = config.read("t5.decoder_block_count", c.numDecoderLayers,
                             c.numLayers))
    return err;
  if (auto err = config.read("t5.attention.head_count", a.numHeads))
    return err;
  a.numKVHeads = a.numHeads;
  if (auto err = config.read("t5.attention.key_length", a.headDim))
    return err;
  int64_t valueLength = 0;
  if (auto err =
          config.read("t5.attention.value_length", valueLength, a.headDim))
    return err;
  if (valueLength != a.headDim)
    return llvm::createStringError(
        config.describe() + ": t5.attention.value_length " +
        llvm::Twine(valueLength) + " differs from t5.attention.key_length " +
        llvm::Twine(a.headDim));
  if (auto err = config.read("t5.attention.relative_buckets_count",
                             a.relativeBuckets, 32))
    return err;
  a.relativeMaxDistance = kMaxDistance;
  if (auto err =
          config.read("t5.attention.layer_norm_rms_epsilon", c.normEps, 1e-6))
    return err;
  if (auto err =
          config.readContextLength("t5.context_length", c.contextLength, 512))
    return err;
  // T5 starts from the pad id, 0.
  if (auto err = config.readCount("t5.decoder_start_token_id",
                                  c.decoderStartToken, c.decoderStartToken))
    return err;
  const TensorEntry *embedding = file.tensors.find("token_embd.weight");
  if (!embedding || embedding->shape.size() != 2)
    return llvm::createStringError(file.tensors.describe() +
                                   " lacks a [vocab, dim] 'token_embd.weight'");
  c.vocabSize = embedding->shape[0];
  if (c.decoderStartToken >= c.vocabSize)
    return llvm::createStringError(
        "t5.decoder_start_token_id " + llvm::Twine(c.decoderStartToken) +
        " in " + config.describe() + " is outside the vocabulary of " +
        llvm::Twine(c.vocabSize));
  c.mlp = file.tensors.contains("enc.blk.0.ffn_gate.weight") ? MlpKind::GeGLU
                                                             : MlpKind::Relu;
  c.tiedEmbeddings = !file.tensors.contains("output.weight");
  return c;
}

llvm::Expected<WeightMap>
tfmc::t5::mapGgufWeights(const Checkpoint &file, const DecoderConfig &config) {
  using R = WeightRole;
  TensorTable &table = file.tensors;
  WeightMap weights;
  if (auto err = takeWeights(table, config,
                             {{"token_embd.weight", {R::TokenEmbedding}}}, -1,
                             weights))
    return err;
  for (bool decoder : {false, true})
    if (auto err = takeGgufStack(table, config, decoder, weights))
      return err;
  if (!config.tiedEmbeddings) {
    if (auto err = takeWeights(table, config, {{"output.weight", {R::LmHead}}},
                               -1, weights))
      return err;
    return std::move(weights);
  }
  if (auto err = foldTiedHeadScale(config, weights))
    return std::move(err);
  return std::move(weights);
}
