//===- Frontends.h - Read model files into a ModelSpec ----------------------===//
//
// Each loader validates everything it reads (magic, version, header fields,
// tensor presence, shapes, dtypes, file sizes) and reports problems as an
// llvm::Error whose message names the file and the tensor or field at fault.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_FRONTENDS_H
#define TFMC_COMPILER_FRONTENDS_FRONTENDS_H

#include "compiler/frontends/ModelSpec.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace tfmc {

/// llama2.c checkpoint (legacy v0 header of 7 int32; negative vocab_size
/// means a separate classifier). `tokenizerPath` may be empty (no tokenizer).
llvm::Expected<ModelSpec> loadLlama2c(const std::string &checkpointPath,
                                      const std::string &tokenizerPath);

/// GGUF v3, general.architecture = "llama", F32/F16 tensors; tokenizer and
/// hyperparameters from the metadata.
llvm::Expected<ModelSpec> loadGguf(const std::string &path);

/// Hugging Face model directory: config.json (model_type gpt2 | llama),
/// model.safetensors, and tokenizer.json or vocab.json + merges.txt.
/// `tokenizerOverride`, when non-empty, names the tokenizer file instead.
llvm::Expected<ModelSpec> loadHuggingFace(const std::string &directory,
                                          const std::string &tokenizerOverride);

/// Picks the loader from what `path` is (directory, .gguf, else llama2.c).
llvm::Expected<ModelSpec> loadModel(const std::string &path,
                                    const std::string &tokenizerPath);

/// Canonical name -> shape of every weight a model of `config` has.
std::map<std::string, std::vector<int64_t>>
expectedWeightShapes(const ModelConfig &config);

/// Checks the weights against the config: every tensor the family needs is
/// present with the right shape, and no unknown tensor is left over.
llvm::Error verifyModelSpec(const ModelSpec &spec);

} // namespace tfmc

#endif // TFMC_COMPILER_FRONTENDS_FRONTENDS_H
