//===- HuggingFace.cpp - T5 in Hugging Face directories -------------------===//
//
// config.json keys of T5Config (absent keys take its defaults, t5-small's
// shape) and the tensors of T5ForConditionalGeneration. Both stacks have
// their own blocks (`encoder.block.N`, `decoder.block.N`), their own final
// norm and a relative position bias table in block 0 only, which every
// block of the stack shares; the token embedding `shared` feeds both.
//
// A tied head (v1.0) scales the decoder's output by d_model^-0.5 before
// the vocabulary projection; the factor is folded into the decoder's final
// norm weight here, which the norm's output is multiplied by anyway.
//
//===----------------------------------------------------------------------===//
#include "models/TensorMap.h"
#include "models/t5/T5.h"

#include "compiler/weights/Transforms.h"

#include <cmath>

using namespace tfmc;

namespace {

llvm::Error unsupported(const ConfigSource &config, llvm::StringRef key,
                        llvm::StringRef value, llvm::StringRef supported) {
  return llvm::createStringError("unsupported " + key + " '" + value + "' in " +
                                 config.describe() +
                                 " (supported: " + supported + ")");
}

/// Takes one stack's tensors (`encoder.` or `decoder.` in the file) under
/// its canonical prefix (`encoder.`, `decoder.`).
llvm::Error takeStack(TensorTable &table, const DecoderConfig &config,
                      bool decoder, WeightMap &weights) {
  using R = WeightRole;
  // The feed-forward block is layer.1 in the encoder and layer.2 in the
  // decoder, after its cross-attention.
  static const TensorMapping kAttention[] = {
      {"block.{layer}.layer.0.SelfAttention.q.weight", {R::Wq}},
      {"block.{layer}.layer.0.SelfAttention.k.weight", {R::Wk}},
      {"block.{layer}.layer.0.SelfAttention.v.weight", {R::Wv}},
      {"block.{layer}.layer.0.SelfAttention.o.weight", {R::Wo}},
      {"block.{layer}.layer.0.layer_norm.weight", {R::AttnNormWeight}},
  };
  static const TensorMapping kCrossAttention[] = {
      {"block.{layer}.layer.1.EncDecAttention.q.weight", {R::CrossWq}},
      {"block.{layer}.layer.1.EncDecAttention.k.weight", {R::CrossWk}},
      {"block.{layer}.layer.1.EncDecAttention.v.weight", {R::CrossWv}},
      {"block.{layer}.layer.1.EncDecAttention.o.weight", {R::CrossWo}},
      {"block.{layer}.layer.1.layer_norm.weight", {R::CrossAttnNormWeight}},
  };
  static const TensorMapping kEncoderFfn[] = {
      {"block.{layer}.layer.1.DenseReluDense.wi.weight", {R::WUp}},
      {"block.{layer}.layer.1.DenseReluDense.wo.weight", {R::WDown}},
      {"block.{layer}.layer.1.layer_norm.weight", {R::FfnNormWeight}},
  };
  static const TensorMapping kEncoderGatedFfn[] = {
      {"block.{layer}.layer.1.DenseReluDense.wi_0.weight", {R::WGate}},
      {"block.{layer}.layer.1.DenseReluDense.wi_1.weight", {R::WUp}},
      {"block.{layer}.layer.1.DenseReluDense.wo.weight", {R::WDown}},
      {"block.{layer}.layer.1.layer_norm.weight", {R::FfnNormWeight}},
  };
  static const TensorMapping kDecoderFfn[] = {
      {"block.{layer}.layer.2.DenseReluDense.wi.weight", {R::WUp}},
      {"block.{layer}.layer.2.DenseReluDense.wo.weight", {R::WDown}},
      {"block.{layer}.layer.2.layer_norm.weight", {R::FfnNormWeight}},
  };
  static const TensorMapping kDecoderGatedFfn[] = {
      {"block.{layer}.layer.2.DenseReluDense.wi_0.weight", {R::WGate}},
      {"block.{layer}.layer.2.DenseReluDense.wi_1.weight", {R::WUp}},
      {"block.{layer}.layer.2.DenseReluDense.wo.weight", {R::WDown}},
      {"block.{layer}.layer.2.layer_norm.weight", {R::FfnNormWeight}},
  };
  bool gated = config.mlp == MlpKind::GeGLU;
  llvm::ArrayRef<TensorMapping> ffn =
      decoder ? (gated ? llvm::ArrayRef<TensorMapping>(kDecoderGatedFfn)
                       : llvm::ArrayRef<TensorMapping>(kDecoderFfn))
              : (gated ? llvm::ArrayRef<TensorMapping>(kEncoderGatedFfn)
                       : llvm::ArrayRef<TensorMapping>(kEncoderFfn));
  std::string stack = decoder ? "decoder" : "encoder";
  std::string prefix = stack + ".";
  WeightMap own;
  if (auto err = takeWeights(
          table, config,
          {{"block.0.layer.0.SelfAttention.relative_attention_bias.weight",
            {R::RelativeBias}},
           {"final_layer_norm.weight", {R::FinalNormWeight}}},
          -1, own, prefix))
    return err;
  int64_t layers = decoder ? config.numDecoderLayers : config.numLayers;
  for (int64_t layer = 0; layer < layers; ++layer) {
    if (auto err = takeWeights(table, config, kAttention, layer, own, prefix))
      return err;
    if (decoder)
      if (auto err =
              takeWeights(table, config, kCrossAttention, layer, own, prefix))
        return err;
    if (auto err = takeWeights(table, config, ffn, layer, own, prefix))
      return err;
  }
  // The stacks' copies of `shared` (tied to it in the model).
  ignoreTensors(table, {"embed_tokens.weight"}, -1, prefix);
  for (auto &[name, weight] : own)
    weights[stackWeightName(stack, name)] = std::move(weight);
  return llvm::Error::success();
}

/// `weight` times `factor`, in f32.
llvm::Expected<weights::Weight> scaled(const weights::Weight &weight,
                                       float factor) {
  auto values = weight.materialize(weights::ElementType::F32);
  if (!values)
    return values.takeError();
  weights::Shape shape = weight.shape();
  return weights::Weight(weights::TensorView::create(
      weights::ElementType::F32, shape, [&](char *out) {
        auto *product = reinterpret_cast<float *>(out);
        for (int64_t i = 0, n = weights::numElements(shape); i < n; ++i)
          product[i] = weights::elementAsFloat(*values, i) * factor;
      }));
}

} // namespace

llvm::Expected<DecoderConfig>
tfmc::t5::readHuggingFaceConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture();
  AttentionSettings &a = c.attention;
  // T5Config's defaults (t5-small).
  if (auto err = config.read("d_model", c.dim, 512))
    return err;
  if (auto err = config.read("d_kv", a.headDim, 64))
    return err;
  if (auto err = config.read("d_ff", c.hiddenDim, 2048))
    return err;
  if (auto err = config.read("num_layers", c.numLayers, 6))
    return err;
  // null in T5Config means "as many as the encoder".
  if (auto err =
          config.read("num_decoder_layers", c.numDecoderLayers, c.numLayers))
    return err;
  if (auto err = config.read("num_heads", a.numHeads, 8))
    return err;
  a.numKVHeads = a.numHeads;
  if (auto err =
          config.read("relative_attention_num_buckets", a.relativeBuckets, 32))
    return err;
  if (auto err = config.read("relative_attention_max_distance",
                             a.relativeMaxDistance, 128))
    return err;
  if (auto err = config.read("vocab_size", c.vocabSize, 32128))
    return err;
  // Relative positions bound no length; n_positions is the length T5 was
  // trained on, which the compiled context defaults to.
  if (auto err = config.readContextLength("n_positions", c.contextLength, 512))
    return err;
  if (auto err = config.read("layer_norm_epsilon", c.normEps, 1e-6))
    return err;

  // T5Config: "gated-" + an activation, or an activation; "gated-gelu" is
  // GELU's tanh form (gelu_new).
  auto projection = config.string("feed_forward_proj", std::string("relu"));
  if (!projection)
    return projection.takeError();
  if (*projection == "relu")
    c.mlp = MlpKind::Relu;
  else if (*projection == "gated-gelu")
    c.mlp = MlpKind::GeGLU;
  else
    return unsupported(config, "feed_forward_proj", *projection,
                       "relu, gated-gelu");
  // T5 starts from the pad id, 0.
  if (auto err = config.readCount("decoder_start_token_id", c.decoderStartToken,
                                  c.decoderStartToken))
    return err;
  if (c.decoderStartToken >= c.vocabSize)
    return llvm::createStringError(
        "decoder_start_token_id " + llvm::Twine(c.decoderStartToken) + " in " +
        config.describe() + " is outside the vocabulary of " +
        llvm::Twine(c.vocabSize));
  auto tied = config.flag("tie_word_embeddings", true);
  if (!tied)
    return tied.takeError();
  c.tiedEmbeddings = *tied;
  auto encoderDecoder = config.flag("is_encoder_decoder", true);
  if (!encoderDecoder)
    return encoderDecoder.takeError();
  if (!*encoderDecoder)
    return llvm::createStringError(
        "unsupported is_encoder_decoder = false in " + config.describe() +
        " (tfmc compiles T5 as an encoder-decoder)");
  return c;
}

llvm::Expected<WeightMap>
tfmc::t5::mapHuggingFaceWeights(const Checkpoint &file,
                                const DecoderConfig &config) {
  using R = WeightRole;
  TensorTable &table = file.tensors;
  WeightMap weights;
  if (auto err = takeWeights(
          table, config, {{"shared.weight", {R::TokenEmbedding}}}, -1, weights))
    return err;
  for (bool decoder : {false, true})
    if (auto err = takeStack(table, config, decoder, weights))
      return err;
  if (!config.tiedEmbeddings) {
    if (auto err = takeWeights(table, config, {{"lm_head.weight", {R::LmHead}}},
                               -1, weights))
      return err;
    return std::move(weights);
  }
  // A tied head's copy of `shared`, when the file keeps it.
  ignoreTensors(table, {"lm_head.weight"}, -1);
  if (auto err = foldTiedHeadScale(config, weights))
    return std::move(err);
  return std::move(weights);
}

llvm::Error tfmc::t5::foldTiedHeadScale(const DecoderConfig &config,
                                        WeightMap &weights) {
  std::string finalNorm =
      stackWeightName("decoder", weightName(WeightRole::FinalNormWeight));
  auto folded = scaled(weights[finalNorm], 1.0f / std::sqrt(float(config.dim)));
  if (!folded)
    return folded.takeError();
  weights[finalNorm] = std::move(*folded);
  return llvm::Error::success();
}
