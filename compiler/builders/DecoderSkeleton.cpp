//===- DecoderSkeleton.cpp - The decoder-only transformer, once -----------===//
#include "compiler/builders/DecoderSkeleton.h"

#include "compiler/builders/Blocks.h"
#include "compiler/builders/EncoderDecoderSkeleton.h"

#include <cmath>

using namespace mlir;
using namespace tfmc;

llvm::Error tfmc::checkDecoderConfig(const DecoderConfig &c,
                                     llvm::StringRef where) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError(where + ": " + what);
  };
  const AttentionSettings &a = c.attention;
  struct Field {
    const char *name;
    int64_t value;
  };
  const Field fields[] = {{"dim", c.dim},
                          {"hidden_dim", c.hiddenDim},
                          {"num_layers", c.numLayers},
                          {"num_heads", a.numHeads},
                          {"num_kv_heads", a.numKVHeads},
                          {"head_dim", a.headDim},
                          {"vocab_size", c.vocabSize},
                          {"context_length", c.contextLength}};
  for (const Field &field : fields)
    if (field.value <= 0)
      return fail(llvm::Twine("config field ") + field.name + " = " +
                  llvm::Twine(field.value) + " must be positive");
  if (a.numHeads % a.numKVHeads != 0)
    return fail("num_heads " + llvm::Twine(a.numHeads) +
                " is not divisible by num_kv_heads " +
                llvm::Twine(a.numKVHeads));
  if (a.slidingWindow < 0)
    return fail("sliding window " + llvm::Twine(a.slidingWindow) +
                " must be positive");
  if (c.position == PositionKind::Rope && a.headDim % 2 != 0)
    return fail("head size " + llvm::Twine(a.headDim) +
                " must be even for rotary embeddings");
  if (a.rotaryDim != 0 &&
      (c.position != PositionKind::Rope || a.rotaryDim < 0 ||
       a.rotaryDim % 2 != 0 || a.rotaryDim > a.headDim))
    return fail("rotary dimension " + llvm::Twine(a.rotaryDim) +
                " must be even and within the head size " +
                llvm::Twine(a.headDim) + " of a rotary model");
  if (c.blockLayout != BlockLayout::Sequential &&
      (c.kind != ModelKind::DecoderOnly || c.moe.experts > 0))
    return fail("parallel attention and MLP are built for dense decoders "
                "only");
  if (c.lmHeadBias && c.kind != ModelKind::DecoderOnly)
    return fail("an LM head bias is built for decoders only");
  if (normsSublayerOutputs(c.normPlacement) &&
      (c.kind != ModelKind::DecoderOnly ||
       c.blockLayout != BlockLayout::Sequential))
    return fail("norms after the sublayers are built for sequential "
                "decoders only");
  if (!(c.attention.softcap >= 0) || !(c.finalLogitSoftcap >= 0) ||
      !std::isfinite(c.attention.softcap) ||
      !std::isfinite(c.finalLogitSoftcap))
    return fail("soft caps must be positive (0: none)");
  if (c.finalLogitSoftcap > 0 && c.kind != ModelKind::DecoderOnly)
    return fail("soft-capped logits are built for decoders only");
  if (c.localRopeTheta != 0 &&
      (c.position != PositionKind::Rope || !(c.localRopeTheta > 0) ||
       !std::isfinite(c.localRopeTheta)))
    return fail("a local RoPE base must be positive, in a rotary model");
  const ExpertSettings &moe = c.moe;
  if (moe.experts > 0) {
    if (moe.topK <= 0 || moe.topK > moe.experts)
      return fail("experts per token " + llvm::Twine(moe.topK) +
                  " must lie in [1, " + llvm::Twine(moe.experts) + "]");
    if (c.mlp != MlpKind::SwiGLU || c.mlpBias)
      return fail("a mixture of experts needs unbiased SwiGLU experts");
  }
  if (!(c.normEps > 0))
    return fail("norm epsilon must be positive");
  bool encoder = c.kind == ModelKind::EncoderOnly;
  if (encoder && (c.position == PositionKind::Alibi || a.slidingWindow > 0 ||
                  c.moe.experts > 0))
    return fail("an encoder takes no ALiBi, sliding window or experts");
  if (encoder && c.maskedLmHead && c.norm != NormKind::LayerNorm)
    return fail("a masked-LM head needs LayerNorm norms");
  if (!encoder && c.normPlacement == NormPlacement::PostNorm)
    return fail("post-norm blocks are built for encoders only");
  bool encoderDecoder = c.kind == ModelKind::EncoderDecoder;
  if (encoderDecoder)
    return checkEncoderDecoderConfig(c, where);
  if (c.position == PositionKind::RelativeBias)
    return fail("relative position biases are built for encoder-decoders "
                "only");
  return llvm::Error::success();
}

std::map<std::string, weights::Shape>
tfmc::decoderWeightShapes(const DecoderConfig &c) {
  if (c.kind == ModelKind::EncoderDecoder)
    return encoderDecoderWeightShapes(c);
  std::map<std::string, weights::Shape> shapes;
  auto add = [&](WeightRole role, int64_t layer = -1) {
    shapes[weightName(role, layer)] = weightShape(c, role);
  };
  bool layerNorm = c.norm == NormKind::LayerNorm;
  add(WeightRole::TokenEmbedding);
  if (c.position == PositionKind::Learned)
    add(WeightRole::PositionEmbedding);
  if (c.embeddingLayerNorm) {
    add(WeightRole::EmbeddingNormWeight);
    add(WeightRole::EmbeddingNormBias);
  }
  // attn_norm and ffn_norm: before the sublayers, or after the residual of
  // a post-norm encoder; OLMo-2 has neither.
  bool blockNorms = normsSublayerInputs(c.normPlacement) ||
                    c.normPlacement == NormPlacement::PostNorm;
  bool outputNorms = normsSublayerOutputs(c.normPlacement);
  for (int64_t l = 0; l < c.numLayers; ++l) {
    for (WeightRole role :
         {WeightRole::Wq, WeightRole::Wk, WeightRole::Wv, WeightRole::Wo})
      add(role, l);
    if (blockNorms)
      add(WeightRole::AttnNormWeight, l);
    // One norm feeds both branches of a shared-norm parallel layer.
    bool ffnNorm =
        blockNorms && c.blockLayout != BlockLayout::ParallelSharedNorm;
    if (ffnNorm)
      add(WeightRole::FfnNormWeight, l);
    if (outputNorms)
      for (WeightRole role :
           {WeightRole::PostAttnNormWeight, WeightRole::PostFfnNormWeight})
        add(role, l);
    if (c.moe.experts > 0) {
      add(WeightRole::Router, l);
      for (int64_t e = 0; e < c.moe.experts; ++e)
        for (WeightRole role : {WeightRole::ExpertGate, WeightRole::ExpertUp,
                                WeightRole::ExpertDown})
          shapes[expertWeightName(role, l, e)] = weightShape(c, role);
    } else {
      add(WeightRole::WUp, l);
      add(WeightRole::WDown, l);
    }
    if (layerNorm) {
      if (blockNorms)
        add(WeightRole::AttnNormBias, l);
      if (ffnNorm)
        add(WeightRole::FfnNormBias, l);
      if (outputNorms)
        for (WeightRole role :
             {WeightRole::PostAttnNormBias, WeightRole::PostFfnNormBias})
          add(role, l);
    }
    if (c.attention.qkvBias)
      for (WeightRole role : {WeightRole::Bq, WeightRole::Bk, WeightRole::Bv})
        add(role, l);
    if (c.attention.qkNorm != QkNorm::None)
      for (WeightRole role : {WeightRole::QNormWeight, WeightRole::KNormWeight})
        add(role, l);
    if (c.attention.outputBias)
      add(WeightRole::Bo, l);
    bool gated = c.moe.experts == 0 &&
                 (c.mlp == MlpKind::SwiGLU || c.mlp == MlpKind::GeGLU);
    if (gated)
      add(WeightRole::WGate, l);
    if (c.mlpBias) {
      add(WeightRole::BUp, l);
      add(WeightRole::BDown, l);
      if (gated)
        add(WeightRole::BGate, l);
    }
  }
  if (c.normPlacement != NormPlacement::PostNorm) {
    add(WeightRole::FinalNormWeight);
    if (layerNorm)
      add(WeightRole::FinalNormBias);
  }
  if (c.kind == ModelKind::EncoderOnly) {
    if (c.maskedLmHead)
      for (WeightRole role : {WeightRole::MlmDense, WeightRole::MlmDenseBias,
                              WeightRole::MlmNormWeight,
                              WeightRole::MlmNormBias, WeightRole::MlmBias})
        add(role);
    return shapes;
  }
  if (!c.tiedEmbeddings)
    add(WeightRole::LmHead);
  if (c.lmHeadBias)
    add(WeightRole::LmHeadBias);
  return shapes;
}

void tfmc::buildDecoderOnly(NetworkBuilder &net) {
  Value table;
  Value x = embedTokens(net, table);
  for (int64_t layer = 0; layer < net.config().numLayers; ++layer) {
    net.setLayer(layer);
    x = decoderLayer(net, x);
  }
  net.setLayer(-1);
  net.finish(net.at("logits"), head(net, x, table));
}
