//===- Gguf.cpp - BERT in llama.cpp's GGUF layout (architecture bert) -----===//
//
// llama.cpp's converter keeps BERT's encoder for embeddings and drops the
// masked-LM head (cls.predictions), so a `bert` GGUF compiles to an encoder
// of hidden states: --embed and --dump-logits. Its tensors:
//   token_embd, token_types [types, dim], position_embd, token_embd_norm,
//   blk.N.attn_{q,k,v,output} (with biases), blk.N.attn_output_norm (the
//   post-attention LayerNorm), blk.N.ffn_{up,down} (with biases),
//   blk.N.layer_output_norm (the post-FFN LayerNorm).
// The file does not record the activation: BertConfig's default, the exact
// (erf) GELU, is what BERT checkpoints use. `bert.pooling_type` names the
// pooling a sentence-transformers model was trained with: the executable's
// --embed uses it unless --pooling picks another (it changes nothing
// compiled).
//
//===----------------------------------------------------------------------===//
#include "models/GgufLayout.h"
#include "models/TensorMap.h"
#include "models/bert/Bert.h"

using namespace tfmc;

namespace {

constexpr const char *kTokenTypes = "token_types.weight";

} // namespace

llvm::Expected<DecoderConfig>
tfmc::bert::readGgufConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture();
  if (auto err = readGgufDecoderConfig(file, "bert", c))
    return std::move(err);
  if (c.attention.numKVHeads != c.attention.numHeads)
    return llvm::createStringError(
        config.describe() + ": bert.attention.head_count_kv " +
        llvm::Twine(c.attention.numKVHeads) +
        " differs from bert.attention.head_count " +
        llvm::Twine(c.attention.numHeads) + " (BERT has no KV groups)");
  auto causal = config.flag("bert.attention.causal", false);
  if (!causal)
    return causal.takeError();
  if (*causal)
    return llvm::createStringError(
        "unsupported bert.attention.causal = true in " + config.describe() +
        " (tfmc compiles BERT as a bidirectional encoder)");
  // llama.cpp's converter drops the masked-LM head.
  c.maskedLmHead = false;
  // llama.cpp's pooling types: 0 none (token embeddings, which --embed
  // still pools by its default), 1 mean, 2 cls; 3 (last) and 4 (rank, a
  // reranker's classifier) are not BERT embedders tfmc builds.
  if (config.isSet("bert.pooling_type")) {
    auto pooling = config.nonNegative("bert.pooling_type");
    if (!pooling)
      return pooling.takeError();
    if (*pooling > 2)
      return llvm::createStringError(
          "unsupported bert.pooling_type " + llvm::Twine(*pooling) + " in " +
          config.describe() + " (supported: 0 none, 1 mean, 2 cls)");
    c.embedding.source = "bert.pooling_type";
    if (*pooling == 2)
      c.embedding.pooling = "cls";
  }
  return c;
}

llvm::Expected<WeightMap>
tfmc::bert::mapGgufWeights(const Checkpoint &file,
                           const DecoderConfig &config) {
  using R = WeightRole;
  static const TensorMapping kLayer[] = {
      {"blk.{layer}.attn_q.weight", {R::Wq}},
      {"blk.{layer}.attn_q.bias", {R::Bq}},
      {"blk.{layer}.attn_k.weight", {R::Wk}},
      {"blk.{layer}.attn_k.bias", {R::Bk}},
      {"blk.{layer}.attn_v.weight", {R::Wv}},
      {"blk.{layer}.attn_v.bias", {R::Bv}},
      {"blk.{layer}.attn_output.weight", {R::Wo}},
      {"blk.{layer}.attn_output.bias", {R::Bo}},
      {"blk.{layer}.attn_output_norm.weight", {R::AttnNormWeight}},
      {"blk.{layer}.attn_output_norm.bias", {R::AttnNormBias}},
      {"blk.{layer}.ffn_up.weight", {R::WUp}},
      {"blk.{layer}.ffn_up.bias", {R::BUp}},
      {"blk.{layer}.ffn_down.weight", {R::WDown}},
      {"blk.{layer}.ffn_down.bias", {R::BDown}},
      {"blk.{layer}.layer_output_norm.weight", {R::FfnNormWeight}},
      {"blk.{layer}.layer_output_norm.bias", {R::FfnNormBias}},
  };
  TensorTable &table = file.tensors;
  WeightMap weights;
  if (auto err =
          takeWeights(table, config,
                      {{"token_embd.weight", {R::TokenEmbedding}},
                       {"position_embd.weight", {R::PositionEmbedding}},
                       {"token_embd_norm.weight", {R::EmbeddingNormWeight}},
                       {"token_embd_norm.bias", {R::EmbeddingNormBias}}},
                      -1, weights))
    return std::move(err);
  auto types = file.config.positive("tokenizer.ggml.token_type_count", 2);
  if (!types)
    return types.takeError();
  auto segments = table.take(kTokenTypes, {*types, config.dim});
  if (!segments)
    return segments.takeError();
  if (auto err = foldFirstSegment(*segments, config, weights))
    return std::move(err);
  for (int64_t layer = 0; layer < config.numLayers; ++layer)
    if (auto err = takeWeights(table, config, kLayer, layer, weights))
      return std::move(err);
  return std::move(weights);
}
