//===- DecoderSkeleton.h - The decoder-only transformer, once ---*- C++ -*-===//
//
// One skeleton for every decoder-only family: embeddings, `numLayers`
// residual blocks of attention and MLP, final norm and LM head, with each
// block's kind taken from the DecoderConfig. Families differ only in the
// settings they fill in (models/<family>/). The weights the skeleton reads
// and the settings it accepts are defined here too, so that checking a model
// and building it cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BUILDERS_DECODERSKELETON_H
#define TFMC_COMPILER_BUILDERS_DECODERSKELETON_H

#include "compiler/builders/NetworkBuilder.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace tfmc {

/// Checks the sizes and settings the skeleton relies on; messages start
/// with `where` (the file or model they came from).
llvm::Error checkDecoderConfig(const DecoderConfig &config,
                               llvm::StringRef where);

/// Canonical name -> shape of every weight the skeleton reads for `config`.
std::map<std::string, weights::Shape>
decoderWeightShapes(const DecoderConfig &config);

/// Emits the body of @forward.
void buildDecoderOnly(NetworkBuilder &net);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_DECODERSKELETON_H
