//===- GgufFuzzer.cpp - Fuzz the GGUF reader and its tokenizer ------------===//
//
// Input: a GGUF file. Opens it as `tfmc compile x.gguf` does, reads the
// config keys the llama family reads, every tensor's bytes, and the
// embedded vocabulary, which it then loads and runs as the runtime would.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/Tokenizers.h"
#include "test/fuzz/FuzzSupport.h"

#include "llvm/Support/Error.h"

using namespace tfmc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = tfm::fuzz::writeScratch(
      "model.gguf",
      std::string_view(reinterpret_cast<const char *>(data), size));
  auto file = frontends::GgufFile::open(path);
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  frontends::GgufFile &gguf = **file;
  (void)gguf.describe();
  for (const char *key :
       {"llama.embedding_length", "llama.block_count", "llama.context_length",
        "llama.attention.head_count", "llama.attention.head_count_kv",
        "llama.feed_forward_length", "llama.vocab_size"})
    llvm::consumeError(gguf.positive(key, 1).takeError());
  llvm::consumeError(
      gguf.positiveReal("llama.rope.freq_base", 1e4).takeError());
  llvm::consumeError(
      gguf.positiveReal("llama.attention.layer_norm_rms_epsilon", 1e-5)
          .takeError());
  llvm::consumeError(gguf.string("general.architecture", "").takeError());
  llvm::consumeError(
      gguf.flag("tokenizer.ggml.add_bos_token", true).takeError());
  (void)gguf.arraySize("tokenizer.ggml.tokens");
  for (const TensorEntry &entry : gguf.tensors().entries())
    if (entry.unreadable.empty())
      (void)tfm::fuzz::touchBytes(entry.view.data(), entry.view.bytes());

  auto tokenizer = frontends::readGgufTokenizer(gguf, SpecialTokens{1, 2});
  if (!tokenizer) {
    llvm::consumeError(tokenizer.takeError());
    return 0;
  }
  if (tokenizer->kind.empty())
    return 0;
  std::string error;
  auto runtime = tfm::rt::loadTokenizer(tokenizer->kind, tokenizer->blob,
                                        tokenizer->bos, tokenizer->eos, error);
  if (runtime)
    tfm::fuzz::exerciseTokenizer(*runtime, tfm::fuzz::kSampleText);
  return 0;
}
