//===- HfTokenizerFuzzer.cpp - Fuzz the runtime's "hf" tokenizer ----------===//
//
// Input: parts (see FuzzSupport.h) tokenizer.json [, tokenizer_config.json
// [, text]]. Builds the "hf" blob as the compiler does, loads it as a
// compiled model does, encodes the text (a fixed sample when absent) and
// prints the ids back.
//
//===----------------------------------------------------------------------===//
#include "runtime/Tokenizer.h"
#include "test/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string_view> parts = tfm::fuzz::splitParts(data, size, 3);
  std::string_view config = parts.size() > 1 ? parts[1] : std::string_view();
  std::string_view text = parts.size() > 2 ? parts[2] : tfm::fuzz::kSampleText;
  std::string blob, error;
  if (!tfm::rt::hfBlobFromJson(parts[0], config, blob, error))
    return 0;
  auto tokenizer = tfm::rt::loadTokenizer("hf", blob, -1, -1, error);
  if (!tokenizer)
    return 0;
  tfm::fuzz::exerciseTokenizer(*tokenizer, text);
  return 0;
}
