//===- LoadModel.h - Model file -> format reader -> family -> ModelSpec ---===//
//
// The glue between the family-agnostic format readers (compiler/frontends)
// and the model families (models/): picks the reader from what a path is,
// the family from what the file says it holds (config.json's model_type,
// GGUF's general.architecture; llama2.c checkpoints have one family), and
// checks what the family made of it.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_DRIVER_LOADMODEL_H
#define TFMC_COMPILER_DRIVER_LOADMODEL_H

#include "compiler/spec/ModelSpec.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

/// Loads the Hugging Face directory (or a file in it), GGUF file or llama2.c
/// checkpoint at `path`. `tokenizerPath`, when non-empty, provides or
/// replaces the tokenizer.
llvm::Expected<ModelSpec> loadModel(const std::string &path,
                                    const std::string &tokenizerPath);

/// Checks a spec before it is built: its settings, every weight the
/// skeleton reads present with its shape and nothing else, and a tokenizer
/// that the runtime accepts and that fits the vocabulary.
llvm::Error verifyModelSpec(const ModelSpec &spec);

} // namespace tfmc

#endif // TFMC_COMPILER_DRIVER_LOADMODEL_H
