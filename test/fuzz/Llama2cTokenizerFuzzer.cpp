//===- Llama2cTokenizerFuzzer.cpp - Fuzz llama2.c tokenizer.bin files -----===//
//
// Input: parts (see FuzzSupport.h) tokenizer.bin [, text]. Loads the file
// as the "spm" runtime tokenizer, reads it through the compiler's
// --tokenizer path with the vocabulary size it holds, encodes the text (a
// fixed sample when absent) and prints the ids back.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"
#include "test/fuzz/FuzzSupport.h"

#include "llvm/Support/Error.h"

using namespace tfmc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string_view> parts = tfm::fuzz::splitParts(data, size, 2);
  std::string_view text = parts.size() > 1 ? parts[1] : tfm::fuzz::kSampleText;
  std::string error;
  auto tokenizer = tfm::rt::loadTokenizer("spm", parts[0], 1, 2, error);
  if (!tokenizer)
    return 0;
  std::string path = tfm::fuzz::writeScratch("tokenizer.bin", parts[0]);
  auto spec = frontends::readLlama2cTokenizer(path, tokenizer->vocabSize(),
                                              SpecialTokens{1, 2});
  if (!spec)
    llvm::consumeError(spec.takeError());
  tfm::fuzz::exerciseTokenizer(*tokenizer, text);
  return 0;
}
