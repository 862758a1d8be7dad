//===- WeightNames.cpp - Canonical weight names: role + layer -------------===//
#include "compiler/builders/WeightNames.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cassert>

using namespace tfmc;

namespace {

struct RoleName {
  bool perLayer;
  const char *name; ///< after "layers.N." for per-layer roles
};

RoleName roleName(WeightRole role) {
  switch (role) {
  case WeightRole::TokenEmbedding:
    return {false, "token_embedding"};
  case WeightRole::PositionEmbedding:
    return {false, "position_embedding"};
  case WeightRole::EmbeddingNormWeight:
    return {false, "embedding_norm.weight"};
  case WeightRole::EmbeddingNormBias:
    return {false, "embedding_norm.bias"};
  case WeightRole::AttnNormWeight:
    return {true, "attn_norm.weight"};
  case WeightRole::AttnNormBias:
    return {true, "attn_norm.bias"};
  case WeightRole::Wq:
    return {true, "attn.wq"};
  case WeightRole::Bq:
    return {true, "attn.bq"};
  case WeightRole::Wk:
    return {true, "attn.wk"};
  case WeightRole::Bk:
    return {true, "attn.bk"};
  case WeightRole::Wv:
    return {true, "attn.wv"};
  case WeightRole::Bv:
    return {true, "attn.bv"};
  case WeightRole::Wo:
    return {true, "attn.wo"};
  case WeightRole::Bo:
    return {true, "attn.bo"};
  case WeightRole::QNormWeight:
    return {true, "attn.q_norm.weight"};
  case WeightRole::KNormWeight:
    return {true, "attn.k_norm.weight"};
  case WeightRole::PostAttnNormWeight:
    return {true, "post_attn_norm.weight"};
  case WeightRole::PostAttnNormBias:
    return {true, "post_attn_norm.bias"};
  case WeightRole::FfnNormWeight:
    return {true, "ffn_norm.weight"};
  case WeightRole::FfnNormBias:
    return {true, "ffn_norm.bias"};
  case WeightRole::PostFfnNormWeight:
    return {true, "post_ffn_norm.weight"};
  case WeightRole::PostFfnNormBias:
    return {true, "post_ffn_norm.bias"};
  case WeightRole::WGate:
    return {true, "ffn.w_gate"};
  case WeightRole::BGate:
    return {true, "ffn.b_gate"};
  case WeightRole::WUp:
    return {true, "ffn.w_up"};
  case WeightRole::BUp:
    return {true, "ffn.b_up"};
  case WeightRole::WDown:
    return {true, "ffn.w_down"};
  case WeightRole::BDown:
    return {true, "ffn.b_down"};
  case WeightRole::Router:
    return {true, "ffn.router"};
  case WeightRole::ExpertGate:
    return {true, "ffn.experts.w_gate"};
  case WeightRole::ExpertUp:
    return {true, "ffn.experts.w_up"};
  case WeightRole::ExpertDown:
    return {true, "ffn.experts.w_down"};
  case WeightRole::FinalNormWeight:
    return {false, "final_norm.weight"};
  case WeightRole::FinalNormBias:
    return {false, "final_norm.bias"};
  case WeightRole::LmHead:
    return {false, "lm_head"};
  case WeightRole::LmHeadBias:
    return {false, "lm_head.bias"};
  case WeightRole::MlmDense:
    return {false, "mlm_head.dense"};
  case WeightRole::MlmDenseBias:
    return {false, "mlm_head.dense_bias"};
  case WeightRole::MlmNormWeight:
    return {false, "mlm_head.norm.weight"};
  case WeightRole::MlmNormBias:
    return {false, "mlm_head.norm.bias"};
  case WeightRole::MlmBias:
    return {false, "mlm_head.bias"};
  case WeightRole::RelativeBias:
    return {false, "relative_bias"};
  case WeightRole::CrossAttnNormWeight:
    return {true, "cross_attn_norm.weight"};
  case WeightRole::CrossWq:
    return {true, "cross_attn.wq"};
  case WeightRole::CrossWk:
    return {true, "cross_attn.wk"};
  case WeightRole::CrossWv:
    return {true, "cross_attn.wv"};
  case WeightRole::CrossWo:
    return {true, "cross_attn.wo"};
  }
  return {false, "unknown"};
}

} // namespace

bool tfmc::isLayerRole(WeightRole role) { return roleName(role).perLayer; }

bool tfmc::isExpertRole(WeightRole role) {
  return role == WeightRole::ExpertGate || role == WeightRole::ExpertUp ||
         role == WeightRole::ExpertDown;
}

std::string tfmc::expertWeightName(WeightRole role, int64_t layer,
                                   int64_t expert) {
  assert(isExpertRole(role) && "not an expert's role");
  // "ffn.experts.w_gate" -> "ffn.experts.5.w_gate".
  llvm::StringRef name = roleName(role).name;
  auto [experts, matrix] = name.rsplit('.');
  return "layers." + std::to_string(layer) + "." + experts.str() + "." +
         std::to_string(expert) + "." + matrix.str();
}

std::string tfmc::weightName(WeightRole role, int64_t layer) {
  RoleName name = roleName(role);
  assert(name.perLayer == (layer >= 0) && "layer index does not fit the role");
  if (!name.perLayer)
    return name.name;
  return "layers." + std::to_string(layer) + "." + name.name;
}

std::string tfmc::stackWeightName(llvm::StringRef stack, llvm::StringRef name) {
  if (stack.empty())
    return name.str();
  return (llvm::Twine(stack) + "." + name).str();
}

weights::Shape tfmc::weightShape(const DecoderConfig &c, WeightRole role) {
  const AttentionSettings &a = c.attention;
  int64_t qDim = a.numHeads * a.headDim, kvDim = a.numKVHeads * a.headDim;
  switch (role) {
  case WeightRole::TokenEmbedding:
  case WeightRole::LmHead:
    return {c.vocabSize, c.dim};
  case WeightRole::PositionEmbedding:
    return {c.contextLength, c.dim};
  case WeightRole::EmbeddingNormWeight:
  case WeightRole::EmbeddingNormBias:
  case WeightRole::AttnNormWeight:
  case WeightRole::AttnNormBias:
  case WeightRole::FfnNormWeight:
  case WeightRole::FfnNormBias:
  case WeightRole::PostAttnNormWeight:
  case WeightRole::PostAttnNormBias:
  case WeightRole::PostFfnNormWeight:
  case WeightRole::PostFfnNormBias:
  case WeightRole::FinalNormWeight:
  case WeightRole::FinalNormBias:
  case WeightRole::Bo:
  case WeightRole::BDown:
  case WeightRole::MlmDenseBias:
  case WeightRole::MlmNormWeight:
  case WeightRole::MlmNormBias:
  case WeightRole::CrossAttnNormWeight:
    return {c.dim};
  case WeightRole::QNormWeight:
    return {a.qkNorm == QkNorm::PerHead ? a.headDim : qDim};
  case WeightRole::KNormWeight:
    return {a.qkNorm == QkNorm::PerHead ? a.headDim : kvDim};
  case WeightRole::RelativeBias:
    return {a.relativeBuckets, a.numHeads};
  case WeightRole::MlmDense:
    return {c.dim, c.dim};
  case WeightRole::MlmBias:
  case WeightRole::LmHeadBias:
    return {c.vocabSize};
  case WeightRole::Wq:
  case WeightRole::CrossWq:
    return {qDim, c.dim};
  case WeightRole::Bq:
    return {qDim};
  case WeightRole::Wk:
  case WeightRole::Wv:
  case WeightRole::CrossWk:
  case WeightRole::CrossWv:
    return {kvDim, c.dim};
  case WeightRole::Bk:
  case WeightRole::Bv:
    return {kvDim};
  case WeightRole::Wo:
  case WeightRole::CrossWo:
    return {c.dim, qDim};
  case WeightRole::WGate:
  case WeightRole::WUp:
  case WeightRole::ExpertGate:
  case WeightRole::ExpertUp:
    return {c.hiddenDim, c.dim};
  case WeightRole::Router:
    return {c.moe.experts, c.dim};
  case WeightRole::BGate:
  case WeightRole::BUp:
    return {c.hiddenDim};
  case WeightRole::WDown:
  case WeightRole::ExpertDown:
    return {c.dim, c.hiddenDim};
  }
  return {};
}
