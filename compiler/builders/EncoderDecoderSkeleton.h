//===- EncoderDecoderSkeleton.h - The encoder-decoder transformer ---------===//
//
// T5's network: an encoder stack over the source tokens and a decoder stack
// over the target tokens whose every layer attends to the encoder's output
// (cross-attention). Each stack has its own layers, final norm and relative
// position bias (`encoder.layers.N...`, `decoder.layers.N...`); the token
// embedding and the LM head are shared. The canonical names
// (compiler/spec/ModelSpec.h) of a stack's weights are prefixed with it,
// and each stack has a relative position bias table:
//   encoder.layers.N.attn.wq ..., encoder.final_norm.weight
//   encoder.relative_bias, decoder.relative_bias [buckets, heads]
//   decoder.layers.N.cross_attn_norm.weight      [dim]
//   decoder.layers.N.cross_attn.wq/wk/wv         [heads*hd, dim]
//   decoder.layers.N.cross_attn.wo               [dim, heads*hd]
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BUILDERS_ENCODERDECODERSKELETON_H
#define TFMC_COMPILER_BUILDERS_ENCODERDECODERSKELETON_H

#include "compiler/builders/NetworkBuilder.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace tfmc {

/// What an encoder-decoder's settings must hold beyond a decoder's.
llvm::Error checkEncoderDecoderConfig(const DecoderConfig &config,
                                      llvm::StringRef where);

std::map<std::string, weights::Shape>
encoderDecoderWeightShapes(const DecoderConfig &config);

/// `@forward(source tokens, target tokens) -> target logits`: the encoder
/// sees every source position (bidirectional, cache role none), the
/// decoder's self-attention is causal (cache role self) and its
/// cross-attention reads the encoder's output (cache role cross).
void buildEncoderDecoder(NetworkBuilder &net);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_ENCODERDECODERSKELETON_H
