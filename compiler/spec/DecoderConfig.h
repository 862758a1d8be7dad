//===- DecoderConfig.h - Settings of the shared decoder skeleton ----------===//
//
// A transformer as the blocks of compiler/builders assemble it: sizes plus
// the kind of each block, and whether it is a decoder or an encoder. A model
// family fills one in from its config keys; the skeleton
// (builders/DecoderSkeleton.h) reads nothing else, so two families differ here
// and not in code.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_SPEC_DECODERCONFIG_H
#define TFMC_COMPILER_SPEC_DECODERCONFIG_H

#include "compiler/spec/GenerationSpec.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfmc {

/// What the network computes and which entry points it gets.
enum class ModelKind {
  DecoderOnly, ///< causal LM: logits of the next token, KV-cached generation
  EncoderOnly, ///< bidirectional encoder (BERT): every position at once
  /// An encoder over the source plus a causal decoder that attends to the
  /// encoder's output through cross-attention in every layer (T5).
  EncoderDecoder,
};

enum class NormKind {
  RMSNorm,   ///< x / rms(x) * weight
  LayerNorm, ///< (x - mean) / std * weight + bias
};

/// How a decoder layer combines its attention and its MLP with the residual
/// stream.
enum class BlockLayout {
  /// x += attn(norm1(x)); x += mlp(norm2(x))
  Sequential,
  /// x += attn(norm1(x)) + mlp(norm2(x)), both norms of the same x
  /// (GPT-NeoX's use_parallel_residual, Falcon's new decoder architecture)
  Parallel,
  /// x += attn(norm1(x)) + mlp(norm1(x)): one norm feeds both (GPT-J,
  /// Phi-2, Falcon-7B); the layer has no second norm
  ParallelSharedNorm,
};

/// Where a block's norms sit relative to its sublayer and residual.
enum class NormPlacement {
  PreNorm,  ///< x + f(norm(x)), and a final norm before the head
  PostNorm, ///< norm(x + f(x)) (BERT); no final norm
  /// x + post(f(pre(x))): a norm before and one after each sublayer, and a
  /// final norm (Gemma 2 and 3)
  Sandwich,
  /// x + post(f(x)): a norm after each sublayer only, and a final norm
  /// (OLMo-2)
  PostSublayer,
};

/// Whether each sublayer's input passes a norm of its own first.
inline bool normsSublayerInputs(NormPlacement placement) {
  return placement == NormPlacement::PreNorm ||
         placement == NormPlacement::Sandwich;
}
/// Whether each sublayer's output passes a norm before the residual adds it.
inline bool normsSublayerOutputs(NormPlacement placement) {
  return placement == NormPlacement::Sandwich ||
         placement == NormPlacement::PostSublayer;
}

/// A norm of the queries and keys before RoPE, with the model's norm
/// epsilon.
enum class QkNorm {
  None,
  /// an RMSNorm of each head's features, weights [head_dim] shared by the
  /// heads (Qwen3)
  PerHead,
  /// an RMSNorm of all heads' features at once, weights [heads * head_dim]
  /// for the queries and [kv_heads * head_dim] for the keys (OLMo-2)
  Whole,
  /// a LayerNorm without bias of each head's features, each head with
  /// weights of its own: [heads * head_dim] and [kv_heads * head_dim]
  /// (StableLM 2 12B)
  PerHeadLayerNorm,
};

enum class PositionKind {
  Learned,    ///< a [context, dim] table added to the token embeddings
  Rope,       ///< rotary embeddings applied to Q and K
  Alibi,      ///< per-head linear biases on the attention scores (BLOOM)
  Sinusoidal, ///< fixed sin/cos encodings added to the token embeddings
  /// T5's learned per-head biases by bucketed relative distance, added to
  /// the self-attention scores (AttentionSettings::relativeBuckets)
  RelativeBias,
};

enum class RopeLayout {
  Interleaved, ///< rotate pairs (2i, 2i+1): llama2.c and GGUF.
  HalfSplit,   ///< rotate pairs (i, i + hd/2): Hugging Face LLaMA.
};

/// How a RoPE's frequencies are stretched for contexts longer than the
/// model was pre-trained on (transformers' `rope_type`, llama.cpp's
/// `rope.scaling.type`). compiler/spec/RopeScaling.h turns it into the
/// per-pair frequencies the network uses.
enum class RopeScalingKind {
  None,   ///< theta^(-2i / d)
  Linear, ///< every frequency divided by `factor` (position interpolation)
  /// Dynamic NTK: the base grows once a sequence passes the original
  /// context; up to it, the default frequencies.
  Dynamic,
  Llama3,   ///< low frequencies divided by `factor`, high kept, a ramp between
  Yarn,     ///< YaRN: NTK-by-parts ramp plus an attention factor on cos/sin
  LongRope, ///< per-pair divisors (Phi-3's short/long factors)
  /// Per-pair divisors read from the file (a GGUF's `rope_freqs.weight`).
  Divisors,
};

struct RopeScaling {
  RopeScalingKind kind = RopeScalingKind::None;
  double factor = 1.0;
  /// The context the model was pre-trained on (0: the config's own).
  int64_t originalContext = 0;
  /// Llama3: the wavelengths (original context / factor) below which
  /// frequencies are kept and above which they are divided.
  double lowFrequencyFactor = 1.0;
  double highFrequencyFactor = 4.0;
  /// YaRN: the rotations per original context that bound the ramp.
  double betaFast = 32.0;
  double betaSlow = 1.0;
  /// YaRN: DeepSeek's mscale and mscale_all_dim (0: unset).
  double mscale = 0.0;
  double mscaleAllDim = 0.0;
  /// YaRN: round the ramp's ends to whole pairs (transformers' default).
  bool truncate = true;
  /// YaRN, LongRoPE: the factor on cos and sin, when the file states it.
  std::optional<double> attentionFactor;
  /// YaRN: a multiplier on the factor on cos and sin, whether stated or
  /// computed (llama.cpp's rope.scaling.attn_factor).
  double attentionMultiplier = 1.0;
  /// LongRoPE: per-pair divisors up to the original context, and beyond.
  std::vector<double> shortFactors;
  std::vector<double> longFactors;
  /// Divisors: one per pair.
  std::vector<double> divisors;
};

enum class MlpKind {
  SwiGLU,   ///< down(silu(gate(x)) * up(x))
  GeGLU,    ///< down(gelu_tanh(gate(x)) * up(x)) (Gemma)
  GeluTanh, ///< down(gelu_tanh(up(x)))
  GeluErf,  ///< down(gelu_erf(up(x))): the exact GELU (BERT)
  Relu,     ///< down(relu(up(x))) (T5 v1.0)
};

/// How a mixture of experts weighs the experts a token chooses.
enum class ExpertRouting {
  TopKSoftmax, ///< softmax over the chosen logits (Mixtral)
  SoftmaxTopK, ///< the chosen experts' full-softmax probabilities
};

/// A mixture of SwiGLU experts in place of the MLP (experts > 0).
struct ExpertSettings {
  int64_t experts = 0;
  int64_t topK = 0;
  ExpertRouting routing = ExpertRouting::TopKSoftmax;
};

struct AttentionSettings {
  int64_t numHeads = 0;
  int64_t numKVHeads = 0; ///< < numHeads: grouped-query attention
  int64_t headDim = 0;    ///< may differ from dim / numHeads (Gemma)
  /// > 0: RoPE rotates only each head's first rotaryDim features (GPT-NeoX's
  /// rotary_pct, Phi's partial_rotary_factor, GPT-J's rotary_dim); 0: all.
  int64_t rotaryDim = 0;
  int64_t slidingWindow = 0; ///< > 0: each query sees that many positions
  /// Layers that attend to every earlier position although slidingWindow
  /// is set (Qwen2's layers below max_window_layers); empty: none.
  std::vector<bool> fullAttentionLayers;
  bool qkvBias = false; ///< biases on the Q, K and V projections
  QkNorm qkNorm = QkNorm::None;
  bool outputBias = false; ///< a bias on the output projection
  /// > 0: the factor of the query-key products (T5: 1, its scale is folded
  /// into the query weights; Gemma 2: query_pre_attn_scalar^-1/2);
  /// 0: 1/sqrt(head_dim).
  float scoreScale = 0.0f;
  /// > 0: scaled scores s become softcap * tanh(s / softcap) (Gemma 2's
  /// attn_logit_softcapping).
  float softcap = 0.0f;
  /// ALiBi's slopes are multiplied by this: Falcon adds its biases before
  /// the score scale, so they are scaled with the scores (1/sqrt(head_dim));
  /// BLOOM adds them after (1).
  float alibiSlopeScale = 1.0f;
  /// > 0: T5's relative position bias, a [buckets, heads] table read in
  /// the first layer of each stack and added to every layer's scores of
  /// that stack's self-attention.
  int64_t relativeBuckets = 0;
  /// Distances from which on the relative position buckets stop growing.
  int64_t relativeMaxDistance = 0;

  /// The window of `layer`'s attention; 0: every earlier position.
  int64_t windowOf(int64_t layer) const {
    bool full = layer >= 0 && std::size_t(layer) < fullAttentionLayers.size() &&
                fullAttentionLayers[std::size_t(layer)];
    return full ? 0 : slidingWindow;
  }
  /// The features of each head that RoPE rotates.
  int64_t rotatedFeatures() const {
    return rotaryDim > 0 ? rotaryDim : headDim;
  }
};

struct DecoderConfig {
  ModelKind kind = ModelKind::DecoderOnly;
  int64_t dim = 0;
  int64_t hiddenDim = 0; ///< the MLP's inner width
  int64_t numLayers = 0; ///< an encoder-decoder's encoder layers
  /// An encoder-decoder's decoder layers (0 in the other kinds).
  int64_t numDecoderLayers = 0;
  /// The token an encoder-decoder's target starts from.
  int64_t decoderStartToken = 0;
  int64_t vocabSize = 0;
  int64_t contextLength = 0;

  NormKind norm = NormKind::RMSNorm;
  NormPlacement normPlacement = NormPlacement::PreNorm;
  BlockLayout blockLayout = BlockLayout::Sequential;
  float normEps = 1e-5f;
  /// RMSNorm scales by (1 + weight) (Gemma).
  bool normUnitOffset = false;

  PositionKind position = PositionKind::Rope;
  RopeLayout ropeLayout = RopeLayout::Interleaved;
  float ropeTheta = 10000.0f;
  RopeScaling ropeScaling;
  /// > 0: the RoPE base of the sliding-window layers, whose frequencies are
  /// never scaled (Gemma 3's rope_local_base_freq); 0: every layer uses
  /// ropeTheta and ropeScaling.
  float localRopeTheta = 0.0f;
  /// The base of the sinusoidal encodings' wavelengths (the paper's 10000).
  float sinusoidBase = 10000.0f;

  MlpKind mlp = MlpKind::SwiGLU;
  bool mlpBias = false;
  /// With experts, the MLP is a mixture of `mlp`-kind experts (SwiGLU).
  ExpertSettings moe;

  AttentionSettings attention;

  /// A LayerNorm of the token embeddings before the first layer (BLOOM).
  bool embeddingLayerNorm = false;
  /// Token embeddings are multiplied by this (Gemma: sqrt(dim)); a tied LM
  /// head still reads the unscaled table.
  float embeddingScale = 1.0f;

  /// The LM head reads the token embedding instead of a weight of its own.
  bool tiedEmbeddings = true;
  /// A bias on the vocabulary logits (Phi-2, GPT-J).
  bool lmHeadBias = false;
  /// > 0: the logits become cap * tanh(logits / cap) (Gemma 2's
  /// final_logit_softcapping).
  float finalLogitSoftcap = 0.0f;

  /// An encoder's masked-LM head (BERT's cls.predictions): dense + GELU (the
  /// MLP's form) + LayerNorm, then the token embedding (tied) plus a bias.
  /// Without it an encoder computes hidden states only (BertModel).
  bool maskedLmHead = false;
  /// How an encoder's `--embed` pools (and normalises) its hidden states
  /// unless its flags say otherwise, as the model was trained (a GGUF's
  /// bert.pooling_type, a sentence-transformers directory's modules).
  EmbeddingSpec embedding;
};

} // namespace tfmc

#endif // TFMC_COMPILER_SPEC_DECODERCONFIG_H
