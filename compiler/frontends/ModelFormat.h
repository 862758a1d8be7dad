//===- ModelFormat.h - What kind of model file a path holds ---------------===//
//
// tfmc recognises a model by its content, not its name: a renamed GGUF is
// still GGUF, and a file that is none of the formats tfmc reads gets a
// message saying what it looks like instead of being parsed as a llama2.c
// checkpoint with absurd dimensions.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_MODELFORMAT_H
#define TFMC_COMPILER_FRONTENDS_MODELFORMAT_H

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc::frontends {

enum class ModelFormat {
  HuggingFace, ///< a directory with config.json (or a file inside it)
  Gguf,
  Llama2c,
  TfmIR, ///< MLIR text, the tfm dialect
};

/// The format of the model at `path`, which the caller checked exists. A
/// directory is a Hugging Face model; a file is told by its first bytes
/// (GGUF's magic, safetensors' header, JSON, MLIR text, a plausible
/// llama2.c header). A file tfmc cannot read is an error that says what it
/// appears to be (a PyTorch pickle, a safetensors file outside its
/// directory, a tokenizer, ...) and which formats tfmc reads.
llvm::Expected<ModelFormat> detectModelFormat(const std::string &path);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_MODELFORMAT_H
