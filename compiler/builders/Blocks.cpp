//===- Blocks.cpp - The building blocks of a transformer, by settings -----===//
//
// A bias is read before its weight, and a LayerNorm's bias before its
// scale: the weights blob has always been laid out in that first-use order,
// and keeping it keeps every layout hash.
//
//===----------------------------------------------------------------------===//
#include "compiler/builders/Blocks.h"

#include <cmath>

using namespace mlir;
using namespace tfmc;

namespace {

struct NormRoles {
  WeightRole weight, bias;
  const char *name;
};

NormRoles normRoles(NormSite site) {
  switch (site) {
  case NormSite::Attention:
    return {WeightRole::AttnNormWeight, WeightRole::AttnNormBias, "attn_norm"};
  case NormSite::Mlp:
    return {WeightRole::FfnNormWeight, WeightRole::FfnNormBias, "ffn_norm"};
  case NormSite::PostAttention:
    return {WeightRole::PostAttnNormWeight, WeightRole::PostAttnNormBias,
            "post_attn_norm"};
  case NormSite::PostMlp:
    return {WeightRole::PostFfnNormWeight, WeightRole::PostFfnNormBias,
            "post_ffn_norm"};
  case NormSite::Final:
    return {WeightRole::FinalNormWeight, WeightRole::FinalNormBias,
            "final_norm"};
  }
  llvm_unreachable("unknown norm site");
}

/// x W^T (+ b): located at the weight's name.
Value projection(NetworkBuilder &net, Value x, WeightRole weight,
                 std::optional<WeightRole> bias) {
  Value b = bias ? net.weight(*bias) : Value();
  Value w = net.weight(weight);
  return net.linear(net.at(weight), x, w, b);
}

} // namespace

Value tfmc::embedTokens(NetworkBuilder &net, Value &table) {
  const DecoderConfig &c = net.config();
  table = net.weight(WeightRole::TokenEmbedding);
  Value x = net.embedding(net.at("token_embedding"), net.tokens(), table,
                          c.embeddingScale);
  if (c.position == PositionKind::Learned)
    x = net.positionEmbedding(net.at("position_embedding"), x,
                              net.weight(WeightRole::PositionEmbedding));
  if (c.position == PositionKind::Sinusoidal)
    x = net.sinusoidalPosition(net.at("sinusoidal_position"), x,
                               c.sinusoidBase);
  // Rotary positions and ALiBi act inside attentionBlock.
  if (!c.embeddingLayerNorm)
    return x;
  Value bias = net.weight(WeightRole::EmbeddingNormBias);
  Value scale = net.weight(WeightRole::EmbeddingNormWeight);
  return net.layerNorm(net.at("embedding_norm"), x, scale, bias, c.normEps);
}

std::vector<float> tfmc::alibiSlopes(int64_t heads) {
  // The ALiBi paper's geometric sequence for the largest power of two
  // n <= heads, 2^(-8i/n), then every other term of the sequence for 2n
  // for the remaining heads; in f32, as BLOOM computes them.
  auto sequence = [](int64_t n, int64_t first, int64_t step, int64_t count,
                     std::vector<float> &out) {
    float base = float(std::exp2(-std::exp2(-(std::log2(double(n)) - 3))));
    for (int64_t i = 0, power = first; i < count; ++i, power += step)
      out.push_back(std::pow(base, float(power)));
  };
  int64_t power = int64_t(1) << int64_t(std::floor(std::log2(double(heads))));
  std::vector<float> slopes;
  sequence(power, 1, 1, power, slopes);
  if (power != heads)
    sequence(2 * power, 1, 2, std::min(power, heads - power), slopes);
  return slopes;
}

Value tfmc::norm(NetworkBuilder &net, Value x, NormSite site) {
  const DecoderConfig &c = net.config();
  NormRoles roles = normRoles(site);
  switch (c.norm) {
  case NormKind::RMSNorm:
    return net.rmsNorm(net.at(roles.name), x, net.weight(roles.weight),
                       c.normEps, c.normUnitOffset);
  case NormKind::LayerNorm: {
    Value bias = net.weight(roles.bias);
    Value scale = net.weight(roles.weight);
    return net.layerNorm(net.at(roles.name), x, scale, bias, c.normEps);
  }
  }
  llvm_unreachable("unknown norm kind");
}

Value tfmc::attentionBlock(NetworkBuilder &net, Value h) {
  const DecoderConfig &c = net.config();
  const AttentionSettings &a = c.attention;
  auto bias = [&](WeightRole role) {
    return a.qkvBias ? std::optional<WeightRole>(role) : std::nullopt;
  };
  int64_t window = a.windowOf(net.layer());
  // Gemma 3's sliding-window layers rotate at a base of their own, never
  // scaled.
  bool local = window > 0 && c.localRopeTheta > 0;
  float theta = local ? c.localRopeTheta : c.ropeTheta;
  std::optional<RopeFrequencies> scaled;
  if (c.position == PositionKind::Rope && !local &&
      scalesFrequencies(c.ropeScaling))
    scaled = ropeFrequencies(c.ropeTheta, a.rotatedFeatures(), c.ropeScaling,
                             net.contextLength());
  auto rotate = [&](Value x, llvm::StringRef name) {
    if (c.position != PositionKind::Rope)
      return x;
    return net.rope(net.at(name), x, a.headDim, a.rotaryDim, theta,
                    c.ropeLayout, scaled ? &*scaled : nullptr);
  };
  // Qwen3 normalises each head's queries and keys before rotating them,
  // OLMo-2 all heads' at once, StableLM 2 12B each head's by a LayerNorm of
  // its own.
  auto normQk = [&](Value x, WeightRole role, llvm::StringRef name) {
    switch (a.qkNorm) {
    case QkNorm::None:
      return x;
    case QkNorm::PerHeadLayerNorm:
      return net.layerNorm(net.at(name), x, net.weight(role), Value(),
                           c.normEps, a.headDim);
    case QkNorm::PerHead:
    case QkNorm::Whole:
      break;
    }
    int64_t group = a.qkNorm == QkNorm::PerHead ? a.headDim : 0;
    return net.rmsNorm(net.at(name), x, net.weight(role), c.normEps,
                       c.normUnitOffset, group);
  };
  Value q =
      rotate(normQk(projection(net, h, WeightRole::Wq, bias(WeightRole::Bq)),
                    WeightRole::QNormWeight, "attn.q_norm"),
             "attn.rope_q");
  Value k =
      rotate(normQk(projection(net, h, WeightRole::Wk, bias(WeightRole::Bk)),
                    WeightRole::KNormWeight, "attn.k_norm"),
             "attn.rope_k");
  Value v = projection(net, h, WeightRole::Wv, bias(WeightRole::Bv));
  Value slopes;
  if (c.position == PositionKind::Alibi) {
    std::vector<float> perHead = alibiSlopes(a.numHeads);
    if (a.alibiSlopeScale != 1.0f)
      for (float &slope : perHead)
        slope *= a.alibiSlopeScale;
    slopes = net.constantVector(net.at("attn.alibi_slopes"), perHead);
  }
  Value attended = net.attention(net.at("attn"), q, k, v, a.numHeads,
                                 a.numKVHeads, window, slopes);
  return projection(net, attended, WeightRole::Wo,
                    a.outputBias ? std::optional(WeightRole::Bo)
                                 : std::nullopt);
}

Value tfmc::mlpBlock(NetworkBuilder &net, Value h) {
  const DecoderConfig &c = net.config();
  if (c.moe.experts > 0) {
    Value router = net.weight(WeightRole::Router);
    Value gate = net.expertWeights(WeightRole::ExpertGate);
    Value up = net.expertWeights(WeightRole::ExpertUp);
    Value down = net.expertWeights(WeightRole::ExpertDown);
    return net.moe(net.at("ffn.moe"), h, router, gate, up, down, c.moe);
  }
  auto bias = [&](WeightRole role) {
    return c.mlpBias ? std::optional<WeightRole>(role) : std::nullopt;
  };
  Value inner;
  switch (c.mlp) {
  case MlpKind::SwiGLU:
  case MlpKind::GeGLU: {
    Value gate = projection(net, h, WeightRole::WGate, bias(WeightRole::BGate));
    bool swish = c.mlp == MlpKind::SwiGLU;
    gate = swish ? net.silu(net.at("ffn.silu"), gate)
                 : net.gelu(net.at("ffn.gelu"), gate);
    Value up = projection(net, h, WeightRole::WUp, bias(WeightRole::BUp));
    inner = net.mul(net.at(swish ? "ffn.swiglu" : "ffn.geglu"), gate, up);
    break;
  }
  case MlpKind::GeluTanh:
  case MlpKind::GeluErf:
    inner = net.gelu(net.at("ffn.gelu"),
                     projection(net, h, WeightRole::WUp, bias(WeightRole::BUp)),
                     c.mlp == MlpKind::GeluErf);
    break;
  case MlpKind::Relu:
    inner = net.relu(net.at("ffn.relu"), projection(net, h, WeightRole::WUp,
                                                    bias(WeightRole::BUp)));
    break;
  }
  return projection(net, inner, WeightRole::WDown, bias(WeightRole::BDown));
}

Value tfmc::residual(NetworkBuilder &net, Value x, NormSite site,
                     llvm::StringRef name,
                     llvm::function_ref<Value(Value)> sublayer) {
  NormPlacement placement = net.config().normPlacement;
  std::string residualName = (name + ".residual").str();
  if (placement == NormPlacement::PostNorm)
    return norm(net, net.add(net.at(residualName), x, sublayer(x)), site);
  Value out = sublayer(normsSublayerInputs(placement) ? norm(net, x, site) : x);
  if (normsSublayerOutputs(placement))
    out = norm(net, out,
               site == NormSite::Attention ? NormSite::PostAttention
                                           : NormSite::PostMlp);
  return net.add(net.at(residualName), x, out);
}

Value tfmc::decoderLayer(NetworkBuilder &net, Value x) {
  auto attention = [&](Value h) { return attentionBlock(net, h); };
  auto mlp = [&](Value h) { return mlpBlock(net, h); };
  switch (net.config().blockLayout) {
  case BlockLayout::Sequential:
    x = residual(net, x, NormSite::Attention, "attn", attention);
    return residual(net, x, NormSite::Mlp, "ffn", mlp);
  case BlockLayout::Parallel:
  case BlockLayout::ParallelSharedNorm: {
    // Both branches read the layer's input; their outputs join the stream
    // together, as (x + attn) + mlp, the order GPT-NeoX and Phi sum them.
    Value normed = norm(net, x, NormSite::Attention);
    Value attended = attention(normed);
    bool shared = net.config().blockLayout == BlockLayout::ParallelSharedNorm;
    Value fed = mlp(shared ? normed : norm(net, x, NormSite::Mlp));
    x = net.add(net.at("attn.residual"), x, attended);
    return net.add(net.at("ffn.residual"), x, fed);
  }
  }
  llvm_unreachable("unknown block layout");
}

Value tfmc::head(NetworkBuilder &net, Value x, Value table) {
  const DecoderConfig &c = net.config();
  x = norm(net, x, NormSite::Final);
  if (!c.tiedEmbeddings)
    table = net.weight(WeightRole::LmHead);
  Value bias = c.lmHeadBias ? net.weight(WeightRole::LmHeadBias) : Value();
  Value logits = net.lmHead(net.at("lm_head"), x, table, bias);
  if (c.finalLogitSoftcap > 0)
    logits =
        net.softCap(net.at("logits.soft_cap"), logits, c.finalLogitSoftcap);
  return logits;
}

Value tfmc::maskedLmHead(NetworkBuilder &net, Value x, Value table) {
  const DecoderConfig &c = net.config();
  Value transformed =
      projection(net, x, WeightRole::MlmDense, WeightRole::MlmDenseBias);
  transformed =
      net.gelu(net.at("mlm_head.gelu"), transformed, c.mlp == MlpKind::GeluErf);
  Value normBias = net.weight(WeightRole::MlmNormBias);
  Value normScale = net.weight(WeightRole::MlmNormWeight);
  transformed = net.layerNorm(net.at("mlm_head.norm"), transformed, normScale,
                              normBias, c.normEps);
  // The decoder is the token embedding (tied), plus a bias of its own.
  Value bias = net.weight(WeightRole::MlmBias);
  return net.linear(net.at("mlm_head.decoder"), transformed, table, bias);
}
