//===- ModelSpec.h - What a frontend reads out of a model file -------------===//
//
// Every frontend (llama2.c .bin, GGUF, Hugging Face directory) produces one
// ModelSpec: the hyperparameters, the weights under canonical names, and the
// tokenizer blob. The family builders (ModelBuilder.h) turn a ModelSpec into
// `tfm` IR; the driver writes the weights into the produced executable.
//
// Canonical tensor names; every matrix is stored [out, in] (torch.nn.Linear):
//   token_embedding            [vocab, dim]
//   position_embedding         [context, dim]            (learned positions)
//   layers.N.attn_norm.weight  [dim]        (+ .bias for LayerNorm)
//   layers.N.attn.wq           [heads*hd, dim]   (+ layers.N.attn.bq [heads*hd])
//   layers.N.attn.wk           [kv_heads*hd, dim] (+ .bk)
//   layers.N.attn.wv           [kv_heads*hd, dim] (+ .bv)
//   layers.N.attn.wo           [dim, heads*hd]   (+ .bo [dim])
//   layers.N.ffn_norm.weight   [dim]        (+ .bias)
//   layers.N.ffn.w_gate        [hidden, dim]     (SwiGLU only)
//   layers.N.ffn.w_up          [hidden, dim]     (+ .b_up [hidden])
//   layers.N.ffn.w_down        [dim, hidden]     (+ .b_down [dim])
//   final_norm.weight          [dim]        (+ .bias)
//   lm_head                    [vocab, dim]      (absent when tied)
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_MODELSPEC_H
#define TFMC_COMPILER_FRONTENDS_MODELSPEC_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tfmc {

enum class ModelFamily {
  Llama, ///< RMSNorm, RoPE, SwiGLU, no biases, GQA via numKVHeads.
  Gpt2,  ///< LayerNorm, learned positions, GELU(tanh), biases, tied head.
};

enum class RopeLayout {
  Interleaved, ///< rotate pairs (2i, 2i+1): llama2.c and GGUF.
  HalfSplit,   ///< rotate pairs (i, i + hd/2): Hugging Face LLaMA.
};

struct ModelConfig {
  ModelFamily family = ModelFamily::Llama;
  int64_t dim = 0;
  int64_t hiddenDim = 0;
  int64_t numLayers = 0;
  int64_t numHeads = 0;
  int64_t numKVHeads = 0;
  int64_t vocabSize = 0;
  int64_t contextLength = 0;
  float normEps = 1e-5f;
  float ropeTheta = 10000.0f;
  RopeLayout ropeLayout = RopeLayout::Interleaved;
  bool tiedEmbeddings = true;

  int64_t headDim() const { return numHeads ? dim / numHeads : 0; }
};

/// A weight tensor, converted to f32 on load (F16 sources are widened).
struct WeightTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

struct TokenizerSpec {
  std::string kind; ///< "spm" or "gpt2-bpe" (runtime/Tokenizer.h).
  std::string blob;
  int bos = -1;
  int eos = -1;
};

struct ModelSpec {
  ModelConfig config;
  std::map<std::string, WeightTensor> weights; ///< canonical names
  TokenizerSpec tokenizer;                     ///< kind empty: no tokenizer
  std::string description; ///< e.g. "llama2.c checkpoint stories260K.bin"
  /// Shown by the executable before it generates (e.g. "random weights").
  std::string note;
};

} // namespace tfmc

#endif // TFMC_COMPILER_FRONTENDS_MODELSPEC_H
