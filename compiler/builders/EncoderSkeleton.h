//===- EncoderSkeleton.h - The encoder-only transformer ---------*- C++ -*-===//
//
// BERT's shape: embeddings, `numLayers` residual blocks of bidirectional
// attention and MLP (norms placed as the config says), and no final norm or
// LM head. @forward returns the final hidden states [sequence, dim] and,
// when the config has a masked-LM head, its logits [sequence, vocab]. The
// weights it reads are decoderWeightShapes()'s, which knows encoders too.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BUILDERS_ENCODERSKELETON_H
#define TFMC_COMPILER_BUILDERS_ENCODERSKELETON_H

#include "compiler/builders/NetworkBuilder.h"

namespace tfmc {

/// Emits the body of @forward for an encoder-only config.
void buildEncoderOnly(NetworkBuilder &net);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_ENCODERSKELETON_H
