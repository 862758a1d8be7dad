//===- GgufLayout.h - Decoder checkpoints in llama.cpp's GGUF layout ------===//
//
// llama.cpp's converters write every decoder family with the same metadata
// keys under the architecture's name (`qwen2.embedding_length`, ...) and
// the same tensor names (`blk.{layer}.attn_q.weight`, `token_embd.weight`,
// ...). The families read the shared part here, so that a key or a tensor
// that two families spell alike is read, defaulted and diagnosed in one
// place; each family states only what its converter does differently
// (which RoPE layout, norm weights stored as 1 + w, a fused QKV).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_GGUFLAYOUT_H
#define TFMC_MODELS_GGUFLAYOUT_H

#include "models/Family.h"
#include "models/TensorMap.h"

namespace tfmc {

/// Reads the sizes, norm epsilon, RoPE base, head size, experts and tied
/// head of the `architecture` decoder in a GGUF file into `c`, whose blocks
/// (norm kind, position kind, ...) the family has already set. Keys are
/// `architecture` + "." + llama.cpp's key names; the vocabulary size is the
/// embedded tokenizer's, else the embedding's rows.
llvm::Error readGgufDecoderConfig(const Checkpoint &file,
                                  llvm::StringRef architecture,
                                  DecoderConfig &c);

/// The canonical weights of a GGUF decoder of `config` in llama.cpp's
/// tensor names: biases, norm biases, the embedding norm and the experts
/// where `config` has them. With `fused.qkv`, each layer's Q, K and V are
/// one `attn_qkv` tensor (and bias); with `fused.gateUp`, its gate and up
/// projections are one `ffn_up`. Experts are `ffn_{gate,up,down}_exps`
/// ([experts, out, in]) or, in older files, one `ffn_{gate,up,down}.{expert}`
/// tensor each.
llvm::Expected<WeightMap> mapGgufDecoderWeights(const Checkpoint &file,
                                                const DecoderConfig &config,
                                                FusedProjections fused = {});

} // namespace tfmc

#endif // TFMC_MODELS_GGUFLAYOUT_H
