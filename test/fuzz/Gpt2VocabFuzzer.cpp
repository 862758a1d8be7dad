//===- Gpt2VocabFuzzer.cpp - Fuzz GPT-2 vocab.json + merges.txt -----------===//
//
// Input: parts (see FuzzSupport.h) vocab.json, merges.txt [, text]. Reads
// them as `--tokenizer vocab.json` does, loads the "gpt2-bpe" blob as a
// compiled model does, encodes the text (a fixed sample when absent) and
// prints the ids back.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"
#include "test/fuzz/FuzzSupport.h"

#include "llvm/Support/Error.h"

using namespace tfmc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string_view> parts = tfm::fuzz::splitParts(data, size, 3);
  std::string path = tfm::fuzz::writeScratch("vocab.json", parts[0]);
  tfm::fuzz::writeScratch("merges.txt",
                          parts.size() > 1 ? parts[1] : std::string_view());
  std::string_view text = parts.size() > 2 ? parts[2] : tfm::fuzz::kSampleText;
  auto spec = frontends::readTokenizerFile(path, 0, SpecialTokens{-1, 0});
  if (!spec) {
    llvm::consumeError(spec.takeError());
    return 0;
  }
  std::string error;
  auto tokenizer = tfm::rt::loadTokenizer(spec->kind, spec->blob, spec->bos,
                                          spec->eos, error);
  if (tokenizer)
    tfm::fuzz::exerciseTokenizer(*tokenizer, text);
  return 0;
}
