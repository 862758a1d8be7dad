//===- EncoderDecoderSkeleton.cpp - The encoder-decoder transformer -------===//
#include "compiler/builders/EncoderDecoderSkeleton.h"

#include "compiler/builders/Blocks.h"

using namespace mlir;
using namespace tfmc;

namespace {

struct AttentionRoles {
  WeightRole q, k, v, o;
};

constexpr AttentionRoles kSelfRoles = {WeightRole::Wq, WeightRole::Wk,
                                       WeightRole::Wv, WeightRole::Wo};
constexpr AttentionRoles kCrossRoles = {
    WeightRole::CrossWq, WeightRole::CrossWk, WeightRole::CrossWv,
    WeightRole::CrossWo};

Value project(NetworkBuilder &net, Value x, WeightRole role) {
  return net.linear(net.at(role), x, net.weight(role), Value());
}

/// Queries from `rows`, keys and values from `memory` (the rows themselves
/// in self-attention), then the output projection.
Value attend(NetworkBuilder &net, Value rows, Value memory,
             const AttentionRoles &roles, const AttentionKind &kind,
             llvm::StringRef name) {
  const AttentionSettings &a = net.config().attention;
  Value q = project(net, rows, roles.q);
  Value k = project(net, memory, roles.k);
  Value v = project(net, memory, roles.v);
  Value attended =
      net.attention(net.at(name), q, k, v, a.numHeads, a.numKVHeads, kind);
  return project(net, attended, roles.o);
}

/// Self-attention of a stack: its relative position bias table and the
/// mask and cache role of the stack.
AttentionKind selfAttention(NetworkBuilder &net, bool causal) {
  const AttentionSettings &a = net.config().attention;
  AttentionKind kind;
  kind.mask =
      causal ? mlir::tfm::MaskKind::causal : mlir::tfm::MaskKind::bidirectional;
  kind.cache = causal ? mlir::tfm::CacheRole::self : mlir::tfm::CacheRole::none;
  kind.relativeBias = net.weight(WeightRole::RelativeBias);
  kind.maxDistance = a.relativeMaxDistance;
  kind.scale = a.scoreScale;
  return kind;
}

} // namespace

llvm::Error tfmc::checkEncoderDecoderConfig(const DecoderConfig &c,
                                            llvm::StringRef where) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError(where + ": " + what);
  };
  const AttentionSettings &a = c.attention;
  if (c.numDecoderLayers <= 0)
    return fail("config field num_decoder_layers = " +
                llvm::Twine(c.numDecoderLayers) + " must be positive");
  if (c.position != PositionKind::RelativeBias || a.relativeBuckets <= 0 ||
      a.relativeMaxDistance <= 0)
    return fail("an encoder-decoder needs relative position biases with "
                "positive buckets and maximum distance");
  if (c.norm != NormKind::RMSNorm || c.normPlacement != NormPlacement::PreNorm)
    return fail("an encoder-decoder is built with pre-norm RMSNorm blocks");
  if (a.slidingWindow > 0 || c.moe.experts > 0 || a.qkvBias || a.outputBias ||
      c.mlpBias || c.embeddingLayerNorm || c.maskedLmHead)
    return fail("an encoder-decoder takes no sliding window, experts, "
                "biases, embedding norm or masked-LM head");
  return llvm::Error::success();
}

std::map<std::string, weights::Shape>
tfmc::encoderDecoderWeightShapes(const DecoderConfig &c) {
  std::map<std::string, weights::Shape> shapes;
  auto add = [&](llvm::StringRef stack, WeightRole role, int64_t layer = -1) {
    shapes[stackWeightName(stack, weightName(role, layer))] =
        weightShape(c, role);
  };
  add("", WeightRole::TokenEmbedding);
  bool gated = c.mlp == MlpKind::SwiGLU || c.mlp == MlpKind::GeGLU;
  for (bool decoder : {false, true}) {
    llvm::StringRef stack = decoder ? "decoder" : "encoder";
    add(stack, WeightRole::RelativeBias);
    add(stack, WeightRole::FinalNormWeight);
    int64_t layers = decoder ? c.numDecoderLayers : c.numLayers;
    for (int64_t l = 0; l < layers; ++l) {
      for (WeightRole role :
           {WeightRole::AttnNormWeight, WeightRole::Wq, WeightRole::Wk,
            WeightRole::Wv, WeightRole::Wo, WeightRole::FfnNormWeight,
            WeightRole::WUp, WeightRole::WDown})
        add(stack, role, l);
      if (gated)
        add(stack, WeightRole::WGate, l);
      if (decoder)
        for (WeightRole role :
             {WeightRole::CrossAttnNormWeight, WeightRole::CrossWq,
              WeightRole::CrossWk, WeightRole::CrossWv, WeightRole::CrossWo})
          add(stack, role, l);
    }
  }
  if (!c.tiedEmbeddings)
    add("", WeightRole::LmHead);
  return shapes;
}

void tfmc::buildEncoderDecoder(NetworkBuilder &net) {
  const DecoderConfig &c = net.config();
  Value table = net.weight(WeightRole::TokenEmbedding);
  Value targetTokens = net.addTokensArgument();

  net.setStack("encoder");
  Value x = net.embedding(net.at("token_embedding"), net.tokens(), table,
                          c.embeddingScale);
  AttentionKind encoderKind = selfAttention(net, /*causal=*/false);
  for (int64_t layer = 0; layer < c.numLayers; ++layer) {
    net.setLayer(layer);
    x = residual(net, x, NormSite::Attention, "attn", [&](Value h) {
      return attend(net, h, h, kSelfRoles, encoderKind, "attn");
    });
    x = residual(net, x, NormSite::Mlp, "ffn",
                 [&](Value h) { return mlpBlock(net, h); });
  }
  net.setLayer(-1);
  Value memory = norm(net, x, NormSite::Final);

  net.setStack("decoder");
  Value y = net.embedding(net.at("token_embedding"), targetTokens, table,
                          c.embeddingScale);
  AttentionKind decoderKind = selfAttention(net, /*causal=*/true);
  AttentionKind crossKind;
  crossKind.mask = mlir::tfm::MaskKind::bidirectional;
  crossKind.cache = mlir::tfm::CacheRole::cross;
  crossKind.scale = c.attention.scoreScale;
  for (int64_t layer = 0; layer < c.numDecoderLayers; ++layer) {
    net.setLayer(layer);
    y = residual(net, y, NormSite::Attention, "attn", [&](Value h) {
      return attend(net, h, h, kSelfRoles, decoderKind, "attn");
    });
    Value h = net.rmsNorm(net.at("cross_attn_norm"), y,
                          net.weight(WeightRole::CrossAttnNormWeight),
                          c.normEps, c.normUnitOffset);
    y = net.add(net.at("cross_attn.residual"), y,
                attend(net, h, memory, kCrossRoles, crossKind, "cross_attn"));
    y = residual(net, y, NormSite::Mlp, "ffn",
                 [&](Value h) { return mlpBlock(net, h); });
  }
  net.setLayer(-1);
  y = norm(net, y, NormSite::Final);

  net.setStack("");
  Value head = c.tiedEmbeddings ? table : net.weight(WeightRole::LmHead);
  net.finish(net.at("logits"), net.lmHead(net.at("lm_head"), y, head));
}
