//===- Gguf.cpp - LLaMA in GGUF files -------------------------------------===//
//
// Metadata keys `llama.*` and the tensor names of llama.cpp (`blk.N.attn_q`).
// llama.cpp's converter permutes Q and K for its interleaved RoPE, so GGUF
// rotates adjacent pairs.
//
//===----------------------------------------------------------------------===//
#include "models/TensorMap.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

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

} // namespace

llvm::Expected<DecoderConfig>
tfmc::llama::readGgufConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture(RopeLayout::Interleaved);
  AttentionSettings &a = c.attention;
  if (auto err = config.read("llama.embedding_length", c.dim))
    return err;
  if (auto err = config.read("llama.feed_forward_length", c.hiddenDim))
    return err;
  if (auto err = config.read("llama.block_count", c.numLayers))
    return err;
  if (auto err = config.read("llama.attention.head_count", a.numHeads))
    return err;
  if (auto err = config.read("llama.attention.head_count_kv", a.numKVHeads,
                             a.numHeads))
    return err;
  if (auto err = config.read("llama.context_length", c.contextLength))
    return err;
  if (auto err =
          config.read("llama.attention.layer_norm_rms_epsilon", c.normEps))
    return err;
  if (auto err = config.read("llama.rope.freq_base", c.ropeTheta, 10000.0))
    return err;
  if (c.dim % a.numHeads != 0)
    return llvm::createStringError(
        config.describe() + ": llama.embedding_length " + llvm::Twine(c.dim) +
        " is not divisible by llama.attention.head_count " +
        llvm::Twine(a.numHeads));
  a.headDim = c.dim / a.numHeads;
  int64_t ropeDim = 0;
  if (auto err = config.read("llama.rope.dimension_count", ropeDim, a.headDim))
    return err;
  if (ropeDim != a.headDim)
    return llvm::createStringError(
        config.describe() + ": llama.rope.dimension_count " +
        llvm::Twine(ropeDim) + " differs from the head size " +
        llvm::Twine(a.headDim) +
        "; partial rotary embeddings are not supported");
  auto vocab = vocabSize(file);
  if (!vocab)
    return vocab.takeError();
  c.vocabSize = *vocab;
  c.tiedEmbeddings = !file.tensors.contains("output.weight");
  return c;
}

llvm::Expected<WeightMap>
tfmc::llama::mapGgufWeights(const Checkpoint &file,
                            const DecoderConfig &config) {
  static const TensorMapping kLayer[] = {
      {"blk.{layer}.attn_norm.weight", {WeightRole::AttnNormWeight}},
      {"blk.{layer}.attn_q.weight", {WeightRole::Wq}},
      {"blk.{layer}.attn_k.weight", {WeightRole::Wk}},
      {"blk.{layer}.attn_v.weight", {WeightRole::Wv}},
      {"blk.{layer}.attn_output.weight", {WeightRole::Wo}},
      {"blk.{layer}.ffn_norm.weight", {WeightRole::FfnNormWeight}},
      {"blk.{layer}.ffn_gate.weight", {WeightRole::WGate}},
      {"blk.{layer}.ffn_down.weight", {WeightRole::WDown}},
      {"blk.{layer}.ffn_up.weight", {WeightRole::WUp}},
  };
  std::vector<TensorMapping> global = {
      {"token_embd.weight", {WeightRole::TokenEmbedding}},
      {"output_norm.weight", {WeightRole::FinalNormWeight}}};
  if (!config.tiedEmbeddings)
    global.push_back({"output.weight", {WeightRole::LmHead}});
  WeightMap weights;
  if (auto err = takeWeights(file.tensors, config, global, -1, weights))
    return err;
  for (int64_t layer = 0; layer < config.numLayers; ++layer)
    if (auto err = takeWeights(file.tensors, config, kLayer, layer, weights))
      return err;
  return std::move(weights);
}
