//===- Blocks.cpp - The building blocks of a transformer, by settings -----===//
//
// A bias is read before its weight, and a LayerNorm's bias before its
// scale: the weights blob has always been laid out in that first-use order,
// and keeping it keeps every layout hash.
//
//===----------------------------------------------------------------------===//
#include "compiler/builders/Blocks.h"

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
  table = net.weight(WeightRole::TokenEmbedding);
  Value x = net.embedding(net.at("token_embedding"), net.tokens(), table);
  switch (net.config().position) {
  case PositionKind::Learned:
    return net.positionEmbedding(net.at("position_embedding"), x,
                                 net.weight(WeightRole::PositionEmbedding));
  case PositionKind::Rope: // applied to Q and K in attentionBlock
    return x;
  }
  llvm_unreachable("unknown position kind");
}

Value tfmc::norm(NetworkBuilder &net, Value x, NormSite site) {
  const DecoderConfig &c = net.config();
  NormRoles roles = normRoles(site);
  switch (c.norm) {
  case NormKind::RMSNorm:
    return net.rmsNorm(net.at(roles.name), x, net.weight(roles.weight),
                       c.normEps);
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
  auto rotate = [&](Value x, llvm::StringRef name) {
    if (c.position != PositionKind::Rope)
      return x;
    return net.rope(net.at(name), x, a.headDim, c.ropeTheta, c.ropeLayout);
  };
  Value q = rotate(projection(net, h, WeightRole::Wq, bias(WeightRole::Bq)),
                   "attn.rope_q");
  Value k = rotate(projection(net, h, WeightRole::Wk, bias(WeightRole::Bk)),
                   "attn.rope_k");
  Value v = projection(net, h, WeightRole::Wv, bias(WeightRole::Bv));
  Value attended =
      net.attention(net.at("attn"), q, k, v, a.numHeads, a.numKVHeads);
  return projection(net, attended, WeightRole::Wo,
                    a.outputBias ? std::optional(WeightRole::Bo)
                                 : std::nullopt);
}

Value tfmc::mlpBlock(NetworkBuilder &net, Value h) {
  const DecoderConfig &c = net.config();
  auto bias = [&](WeightRole role) {
    return c.mlpBias ? std::optional<WeightRole>(role) : std::nullopt;
  };
  Value inner;
  switch (c.mlp) {
  case MlpKind::SwiGLU: {
    Value gate =
        net.silu(net.at("ffn.silu"), projection(net, h, WeightRole::WGate,
                                                bias(WeightRole::BGate)));
    Value up = projection(net, h, WeightRole::WUp, bias(WeightRole::BUp));
    inner = net.mul(net.at("ffn.swiglu"), gate, up);
    break;
  }
  case MlpKind::GeluTanh:
    inner = net.gelu(net.at("ffn.gelu"), projection(net, h, WeightRole::WUp,
                                                    bias(WeightRole::BUp)));
    break;
  }
  return projection(net, inner, WeightRole::WDown, bias(WeightRole::BDown));
}

Value tfmc::residual(NetworkBuilder &net, Value x, NormSite site,
                     llvm::StringRef name,
                     llvm::function_ref<Value(Value)> sublayer) {
  switch (net.config().normPlacement) {
  case NormPlacement::PreNorm:
    return net.add(net.at((name + ".residual").str()), x,
                   sublayer(norm(net, x, site)));
  }
  llvm_unreachable("unknown norm placement");
}

Value tfmc::head(NetworkBuilder &net, Value x, Value table) {
  x = norm(net, x, NormSite::Final);
  if (!net.config().tiedEmbeddings)
    table = net.weight(WeightRole::LmHead);
  return net.lmHead(net.at("lm_head"), x, table);
}
