//===- Blocks.h - The building blocks of a transformer, by settings -------===//
//
// Each block reads its kind from the DecoderConfig (norm kind, position kind,
// MLP kind, attention settings) and its weights by role from the current
// layer, so a model family chooses blocks by filling in settings, not by
// writing code. A new kind (post-norm, sinusoidal positions, ALiBi, another
// MLP) is a new case here.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BUILDERS_BLOCKS_H
#define TFMC_COMPILER_BUILDERS_BLOCKS_H

#include "compiler/builders/NetworkBuilder.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace tfmc {

/// Where a norm sits; picks its weights and its name.
enum class NormSite {
  Attention,     ///< before attention
  Mlp,           ///< before the MLP
  PostAttention, ///< after attention, before the residual adds it
  PostMlp,       ///< after the MLP, before the residual adds it
  Final,
};

/// Token embeddings of the sequence, plus learned or sinusoidal positions
/// when the positions are either, normalised when the embeddings have a norm.
/// `table` receives the embedding table (a tied LM head reads it).
mlir::Value embedTokens(NetworkBuilder &net, mlir::Value &table);

/// The ALiBi slope of each of `heads` heads (BLOOM's, for any head count).
std::vector<float> alibiSlopes(int64_t heads);

/// The configured norm (RMSNorm or LayerNorm) at `site`.
mlir::Value norm(NetworkBuilder &net, mlir::Value x, NormSite site);

/// Self-attention over `h`: Q/K/V projections (biased when configured),
/// rotary embeddings on Q and K when positions are rotary, causal
/// attention (windowed, or with ALiBi biases, as configured), the output
/// projection.
mlir::Value attentionBlock(NetworkBuilder &net, mlir::Value h);

/// The configured MLP (SwiGLU, GeGLU, GELU-tanh or GELU-erf, or a mixture
/// of SwiGLU experts) over `h`.
mlir::Value mlpBlock(NetworkBuilder &net, mlir::Value h);

/// `x` plus `sublayer` of `x`, normalised at `site` (Attention or Mlp) as
/// the norm placement says (pre-norm: x + f(norm(x)); post-norm:
/// norm(x + f(x)); sandwich: x + post(f(norm(x))); post-sublayer:
/// x + post(f(x)), post the norm after `site`); `name` ("attn", "ffn")
/// names the residual add.
mlir::Value residual(NetworkBuilder &net, mlir::Value x, NormSite site,
                     llvm::StringRef name,
                     llvm::function_ref<mlir::Value(mlir::Value)> sublayer);

/// One decoder layer over the residual stream `x`: attention and MLP
/// sequentially or in parallel, as the config's block layout says.
mlir::Value decoderLayer(NetworkBuilder &net, mlir::Value x);

/// The final norm and the LM head (reading `table` when tied, plus the
/// head's bias where the model has one).
mlir::Value head(NetworkBuilder &net, mlir::Value x, mlir::Value table);

/// An encoder's masked-LM head over the final hidden states `x`: dense,
/// GELU (the MLP's form), LayerNorm, then logits against the token
/// embedding `table` plus a vocabulary bias (BERT's cls.predictions).
mlir::Value maskedLmHead(NetworkBuilder &net, mlir::Value x, mlir::Value table);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_BLOCKS_H
