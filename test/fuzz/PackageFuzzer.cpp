//===- PackageFuzzer.cpp - Fuzz the package loader of compiled models -----===//
//
// Input: a file ending in a tfmc package (runtime/Package.h): what a
// compiled executable opens at start-up. Opens it, reads the metadata as
// Main.cpp does, loads the tokenizer it names and runs it.
//
//===----------------------------------------------------------------------===//
#include "runtime/Package.h"
#include "runtime/Tokenizer.h"
#include "test/fuzz/FuzzSupport.h"

#include <charconv>

namespace {
/// Main.cpp's check: an id in [-1, vocabulary size), else the model does
/// not start. The tokenizer's own size stands in for the model's here.
int specialId(std::string_view text, int vocab) {
  int id = -1;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size() || id < -1 ||
      id >= vocab)
    return -1;
  return id;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = tfm::fuzz::writeScratch(
      "model.pkg",
      std::string_view(reinterpret_cast<const char *>(data), size));
  tfm::rt::Package package;
  std::string error;
  if (!package.open(path, error))
    return 0;
  (void)tfm::fuzz::touchBytes(reinterpret_cast<const char *>(package.weights()),
                              package.weightsBytes());
  (void)package.get("model.description");
  (void)package.get("model.note");
  std::string_view kind = package.get("tokenizer.kind");
  std::string_view blob = package.get("tokenizer.data");
  auto tokenizer = tfm::rt::loadTokenizer(kind, blob, -1, -1, error);
  if (!tokenizer)
    return 0;
  int vocab = tokenizer->vocabSize();
  tokenizer = tfm::rt::loadTokenizer(
      kind, blob, specialId(package.get("token.bos"), vocab),
      specialId(package.get("token.eos"), vocab), error);
  if (tokenizer)
    tfm::fuzz::exerciseTokenizer(*tokenizer, tfm::fuzz::kSampleText);
  return 0;
}
