//===- HfTokenizer.h - Tokenizers of Hugging Face model directories --------===//
//
// Internal to compiler/frontends: turns tokenizer.json, vocab.json +
// merges.txt or an explicit tokenizer file into a TokenizerSpec.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_HFTOKENIZER_H
#define TFMC_COMPILER_FRONTENDS_HFTOKENIZER_H

#include "compiler/frontends/ModelSpec.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace tfmc::frontends {

/// Finds and converts the tokenizer of the model in `directory`:
/// `override` when non-empty (tokenizer.json, vocab.json with merges.txt
/// beside it, or a llama2.c tokenizer.bin), else tokenizer.json, else
/// vocab.json + merges.txt. Special ids come from `config` (config.json).
/// Returns an empty TokenizerSpec when the directory has no tokenizer.
llvm::Expected<TokenizerSpec> loadHfTokenizer(const std::string &directory,
                                              const std::string &override,
                                              const llvm::json::Object &config,
                                              const ModelConfig &model);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_HFTOKENIZER_H
