//===- HuggingFace.cpp - BERT in Hugging Face directories -----------------===//
//
// config.json keys of BertConfig (absent keys take its defaults, in
// transformers 4.x and 5.x alike); tensors of BertModel, or of
// BertForMaskedLM, which prefixes them with "bert." and adds the masked-LM
// head under "cls.predictions.". A checkpoint without that head compiles to
// an encoder of hidden states only.
//
// Every sequence the executable runs is one segment: the segment-0 row of
// token_type_embeddings is added to every position's embedding, so it is
// folded into the position table once, at compile time.
//
//===----------------------------------------------------------------------===//
#include "models/ActivationConfig.h"
#include "models/TensorMap.h"
#include "models/bert/Bert.h"

#include "compiler/weights/Transforms.h"

using namespace tfmc;

namespace {

/// The masked-LM head's bias: present in BertForMaskedLM (and
/// BertForPreTraining) checkpoints only.
constexpr const char *kMlmBias = "cls.predictions.bias";

std::string modelPrefix(const TensorTable &table) {
  return table.contains("bert.embeddings.word_embeddings.weight") ? "bert."
                                                                  : "";
}

llvm::Error unsupported(const ConfigSource &config, llvm::StringRef key,
                        llvm::StringRef value, llvm::StringRef supported) {
  return llvm::createStringError("unsupported " + key + " '" + value + "' in " +
                                 config.describe() +
                                 " (supported: " + supported + ")");
}

} // namespace

llvm::Error tfmc::bert::foldFirstSegment(const weights::TensorView &segments,
                                         const DecoderConfig &config,
                                         WeightMap &weights) {
  std::string positionName = weightName(WeightRole::PositionEmbedding);
  auto positions = weights[positionName].materialize(weights::ElementType::F32);
  if (!positions)
    return positions.takeError();
  auto segment = weights::cast(segments.select(0), weights::ElementType::F32);
  if (!segment)
    return segment.takeError();
  int64_t rows = config.contextLength, dim = config.dim;
  weights[positionName] = weights::Weight(weights::TensorView::create(
      weights::ElementType::F32, {rows, dim}, [&](char *out) {
        auto *sum = reinterpret_cast<float *>(out);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t i = 0; i < dim; ++i)
            sum[r * dim + i] =
                weights::elementAsFloat(*positions, r * dim + i) +
                weights::elementAsFloat(*segment, i);
      }));
  return llvm::Error::success();
}

llvm::Error tfmc::bert::readHuggingFaceEncoder(const ConfigSource &config,
                                               DecoderConfig &c) {
  AttentionSettings &a = c.attention;
  // BertConfig's defaults (bert-base-uncased).
  if (auto err = config.read("hidden_size", c.dim, 768))
    return err;
  if (auto err = config.read("num_hidden_layers", c.numLayers, 12))
    return err;
  if (auto err = config.read("num_attention_heads", a.numHeads, 12))
    return err;
  a.numKVHeads = a.numHeads;
  if (c.dim % a.numHeads != 0)
    return llvm::createStringError(
        config.describe() + ": hidden_size " + llvm::Twine(c.dim) +
        " is not divisible by num_attention_heads " + llvm::Twine(a.numHeads));
  a.headDim = c.dim / a.numHeads;
  if (auto err = config.read("intermediate_size", c.hiddenDim, 3072))
    return err;
  if (auto err = config.read("vocab_size", c.vocabSize, 30522))
    return err;
  if (auto err = config.readContextLength("max_position_embeddings",
                                          c.contextLength, 512))
    return err;
  if (auto err = config.read("layer_norm_eps", c.normEps, 1e-12))
    return err;
  if (auto types = config.positive("type_vocab_size", 2); !types)
    return types.takeError();

  if (auto err = readHfGelu(config, "hidden_act", "gelu", c.mlp))
    return err;
  auto positions =
      config.string("position_embedding_type", std::string("absolute"));
  if (!positions)
    return positions.takeError();
  if (*positions != "absolute")
    return unsupported(config, "position_embedding_type", *positions,
                       "absolute");
  // A BERT used as a causal decoder (BertLMHeadModel) is not an encoder.
  auto decoder = config.flag("is_decoder", false);
  if (!decoder)
    return decoder.takeError();
  if (*decoder)
    return llvm::createStringError(
        "unsupported is_decoder = true in " + config.describe() +
        " (tfmc compiles BERT as a bidirectional encoder)");
  return llvm::Error::success();
}

llvm::Expected<DecoderConfig>
tfmc::bert::readHuggingFaceConfig(const Checkpoint &file) {
  DecoderConfig c = architecture();
  if (auto err = readHuggingFaceEncoder(file.config, c))
    return std::move(err);
  c.maskedLmHead = file.tensors.contains(kMlmBias);
  return c;
}

llvm::Error tfmc::bert::mapHuggingFaceEncoder(const Checkpoint &file,
                                              const DecoderConfig &config,
                                              llvm::StringRef prefix,
                                              int64_t positionOffset,
                                              WeightMap &weights) {
  using R = WeightRole;
  static const TensorMapping kLayer[] = {
      {"encoder.layer.{layer}.attention.self.query.weight", {R::Wq}},
      {"encoder.layer.{layer}.attention.self.query.bias", {R::Bq}},
      {"encoder.layer.{layer}.attention.self.key.weight", {R::Wk}},
      {"encoder.layer.{layer}.attention.self.key.bias", {R::Bk}},
      {"encoder.layer.{layer}.attention.self.value.weight", {R::Wv}},
      {"encoder.layer.{layer}.attention.self.value.bias", {R::Bv}},
      {"encoder.layer.{layer}.attention.output.dense.weight", {R::Wo}},
      {"encoder.layer.{layer}.attention.output.dense.bias", {R::Bo}},
      {"encoder.layer.{layer}.attention.output.LayerNorm.weight",
       {R::AttnNormWeight}},
      {"encoder.layer.{layer}.attention.output.LayerNorm.bias",
       {R::AttnNormBias}},
      {"encoder.layer.{layer}.intermediate.dense.weight", {R::WUp}},
      {"encoder.layer.{layer}.intermediate.dense.bias", {R::BUp}},
      {"encoder.layer.{layer}.output.dense.weight", {R::WDown}},
      {"encoder.layer.{layer}.output.dense.bias", {R::BDown}},
      {"encoder.layer.{layer}.output.LayerNorm.weight", {R::FfnNormWeight}},
      {"encoder.layer.{layer}.output.LayerNorm.bias", {R::FfnNormBias}},
  };
  TensorTable &table = file.tensors;
  TensorMapping positions = {"embeddings.position_embeddings.weight",
                             {R::PositionEmbedding}};
  positions.skippedRows = positionOffset;
  if (auto err = takeWeights(
          table, config,
          {{"embeddings.word_embeddings.weight", {R::TokenEmbedding}},
           positions,
           {"embeddings.LayerNorm.weight", {R::EmbeddingNormWeight}},
           {"embeddings.LayerNorm.bias", {R::EmbeddingNormBias}}},
          -1, weights, prefix))
    return err;

  // Segment 0's embedding, folded into every position's row.
  auto types = file.config.positive("type_vocab_size", 2);
  if (!types)
    return types.takeError();
  auto segments =
      table.take(prefix.str() + "embeddings.token_type_embeddings.weight",
                 {*types, config.dim});
  if (!segments)
    return segments.takeError();
  if (auto err = bert::foldFirstSegment(*segments, config, weights))
    return err;

  for (int64_t layer = 0; layer < config.numLayers; ++layer)
    if (auto err = takeWeights(table, config, kLayer, layer, weights, prefix))
      return err;
  // Buffers and heads nothing here computes: the position ids 0..n, the
  // pooler (BertModel's tanh over [CLS]) and next-sentence prediction.
  ignoreTensors(
      table,
      {"embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias"},
      -1, prefix);
  return llvm::Error::success();
}

llvm::Expected<WeightMap>
tfmc::bert::mapHuggingFaceWeights(const Checkpoint &file,
                                  const DecoderConfig &config) {
  using R = WeightRole;
  TensorTable &table = file.tensors;
  WeightMap weights;
  if (auto err =
          mapHuggingFaceEncoder(file, config, modelPrefix(table), 0, weights))
    return std::move(err);
  ignoreTensors(
      table, {"cls.seq_relationship.weight", "cls.seq_relationship.bias"}, -1);
  if (!config.maskedLmHead)
    return std::move(weights);
  if (auto err = takeWeights(
          table, config,
          {{"cls.predictions.transform.dense.weight", {R::MlmDense}},
           {"cls.predictions.transform.dense.bias", {R::MlmDenseBias}},
           {"cls.predictions.transform.LayerNorm.weight", {R::MlmNormWeight}},
           {"cls.predictions.transform.LayerNorm.bias", {R::MlmNormBias}},
           {kMlmBias, {R::MlmBias}}},
          -1, weights))
    return err;
  // The decoder is tied to the word embeddings and its bias to
  // cls.predictions.bias; stored copies add nothing.
  ignoreTensors(
      table, {"cls.predictions.decoder.weight", "cls.predictions.decoder.bias"},
      -1);
  return std::move(weights);
}
