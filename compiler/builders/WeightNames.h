//===- WeightNames.h - Canonical weight names: role + layer -----*- C++ -*-===//
//
// Every weight of a decoder is a role (the query projection, a norm's bias,
// ...) and, for per-layer roles, a layer index. weightName() is the one
// place that spells the canonical names (`layers.3.attn.wq`), which are the
// `tfm.global_weight` symbols the passes fuse by (tfm-fuse-qkv stacks
// `<prefix>wq/wk/wv` into `<prefix>wqkv`), and weightShape() the one place
// that says how large each is.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BUILDERS_WEIGHTNAMES_H
#define TFMC_COMPILER_BUILDERS_WEIGHTNAMES_H

#include "compiler/spec/DecoderConfig.h"
#include "compiler/weights/TensorView.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tfmc {

enum class WeightRole {
  TokenEmbedding,
  PositionEmbedding,
  EmbeddingNormWeight,
  EmbeddingNormBias,
  AttnNormWeight,
  AttnNormBias,
  Wq,
  Bq,
  Wk,
  Bk,
  Wv,
  Bv,
  Wo,
  Bo,
  /// RMSNorm weights of the queries and keys: [head_dim] per head (Qwen3),
  /// or [heads * head_dim] and [kv_heads * head_dim] for all (OLMo-2)
  QNormWeight,
  KNormWeight,
  /// The norm of attention's output before the residual adds it (Gemma 2)
  PostAttnNormWeight,
  PostAttnNormBias,
  FfnNormWeight,
  FfnNormBias,
  /// The norm of the MLP's output before the residual adds it (Gemma 2)
  PostFfnNormWeight,
  PostFfnNormBias,
  WGate,
  BGate,
  WUp,
  BUp,
  WDown,
  BDown,
  Router,     ///< a mixture of experts' router, [experts, dim]
  ExpertGate, ///< one expert's (SwiGLU) gate projection
  ExpertUp,   ///< one expert's up projection
  ExpertDown, ///< one expert's down projection
  FinalNormWeight,
  FinalNormBias,
  LmHead,
  LmHeadBias,    ///< a bias on the vocabulary logits, [vocab] (Phi-2, GPT-J)
  MlmDense,      ///< the masked-LM head's transform, [dim, dim]
  MlmDenseBias,  ///< its bias, [dim]
  MlmNormWeight, ///< its LayerNorm, [dim]
  MlmNormBias,
  MlmBias, ///< the bias added to the (tied) vocabulary logits, [vocab]
  /// T5's relative position bias of a stack, [buckets, heads]
  RelativeBias,
  CrossAttnNormWeight, ///< an encoder-decoder's cross-attention norm
  CrossWq,             ///< cross-attention query, from the decoder's rows
  CrossWk,             ///< cross-attention key, from the encoder's output
  CrossWv,             ///< cross-attention value, from the encoder's output
  CrossWo,             ///< cross-attention output projection
};

/// True for the roles every layer has one of.
bool isLayerRole(WeightRole role);

/// The canonical name of `role` (in `layer` for a per-layer role, which
/// needs one). For an expert role, the name of all experts' matrices
/// stacked in expert order (`layers.3.ffn.experts.w_gate`).
std::string weightName(WeightRole role, int64_t layer = -1);

/// True for the roles each expert of a mixture has one of.
bool isExpertRole(WeightRole role);

/// The canonical name of expert `expert`'s `role` in `layer`
/// (`layers.3.ffn.experts.5.w_gate`).
std::string expertWeightName(WeightRole role, int64_t layer, int64_t expert);

/// `name` inside the stack `stack` of an encoder-decoder ("encoder",
/// "decoder"): `encoder.layers.3.attn.wq`; `name` itself when `stack` is
/// empty.
std::string stackWeightName(llvm::StringRef stack, llvm::StringRef name);

/// The canonical shape of `role` in a model of `config` (matrices [out,
/// in]; one expert's for an expert role).
weights::Shape weightShape(const DecoderConfig &config, WeightRole role);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_WEIGHTNAMES_H
