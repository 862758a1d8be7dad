//===- Tokenizer.cpp - Tokenizer construction by kind ---------------------===//
//
// Maps a package's "tokenizer.kind" to its implementation.
//
//===----------------------------------------------------------------------===//
#include "runtime/Tokenizer.h"

#include "runtime/Gpt2Tokenizer.h"
#include "runtime/SpmTokenizer.h"

namespace tfm::rt {

std::unique_ptr<Tokenizer> loadTokenizer(std::string_view kind,
                                         std::string_view data, int bos,
                                         int eos, std::string &error) {
  if (kind == "spm")
    return SpmTokenizer::create(data, bos, error);
  if (kind == "gpt2-bpe")
    return Gpt2Tokenizer::create(data, bos, eos, error);
  error = "unknown tokenizer kind '" + std::string(kind) +
          "' (expected 'spm' or 'gpt2-bpe')";
  return nullptr;
}

} // namespace tfm::rt
