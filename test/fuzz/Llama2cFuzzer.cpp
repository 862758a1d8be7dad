//===- Llama2cFuzzer.cpp - Fuzz the llama2.c checkpoint reader ------------===//
//
// Input: a llama2.c .bin checkpoint. Opens it, reads its config keys and
// every tensor's bytes.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Llama2c.h"
#include "test/fuzz/FuzzSupport.h"

#include "llvm/Support/Error.h"

using namespace tfmc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = tfm::fuzz::writeScratch(
      "model.bin",
      std::string_view(reinterpret_cast<const char *>(data), size));
  auto checkpoint = frontends::Llama2cCheckpoint::open(path);
  if (!checkpoint) {
    llvm::consumeError(checkpoint.takeError());
    return 0;
  }
  frontends::Llama2cCheckpoint &model = **checkpoint;
  (void)model.describe();
  for (const char *key : {"dim", "hidden_dim", "n_layers", "n_heads",
                          "n_kv_heads", "vocab_size", "seq_len"})
    llvm::consumeError(model.positive(key, std::nullopt).takeError());
  llvm::consumeError(model.flag("shared_classifier", true).takeError());
  for (const TensorEntry &entry : model.tensors().entries())
    if (entry.unreadable.empty())
      (void)tfm::fuzz::touchBytes(entry.view.data(), entry.view.bytes());
  return 0;
}
