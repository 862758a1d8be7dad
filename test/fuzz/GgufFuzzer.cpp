//===- GgufFuzzer.cpp - Fuzz the GGUF reader and its tokenizer ------------===//
//
// Input: a GGUF file. Opens it as `tfmc compile x.gguf` does, reads the
// config keys the llama family reads, every tensor's bytes (and checks them
// for non-finite values and block scales as the package writer does with a
// tensor kept as stored), the RoPE scaling it states (keys and rope_freqs)
// through the frequencies, and the embedded vocabulary, which it then
// loads and runs as the runtime would.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/Tokenizers.h"
#include "compiler/spec/RopeScaling.h"
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
  for (const TensorEntry &entry : gguf.tensors().entries()) {
    if (!entry.unreadable.empty())
      continue;
    (void)tfm::fuzz::touchBytes(entry.view.data(), entry.view.bytes());
    if (std::optional<uint64_t> at = weights::findNonFinite(entry.view))
      (void)weights::elementAsFloat(entry.view, *at);
  }

  RopeScaling scaling;
  auto type = gguf.string("llama.rope.scaling.type", std::string("none"));
  auto factor = gguf.positiveReal("llama.rope.scaling.factor", 1.0);
  auto original =
      gguf.positive("llama.rope.scaling.original_context_length", 4096);
  if (type && factor && original) {
    scaling.kind = *type == "yarn"     ? RopeScalingKind::Yarn
                   : *type == "linear" ? RopeScalingKind::Linear
                                       : RopeScalingKind::None;
    scaling.factor = *factor;
    scaling.originalContext = *original;
    int64_t rotary = 64;
    const TensorEntry *divisors = gguf.tensors().find("rope_freqs.weight");
    if (scaling.kind == RopeScalingKind::None && divisors &&
        divisors->unreadable.empty() && divisors->view.numElements() <= 4096) {
      scaling.kind = RopeScalingKind::Divisors;
      for (uint64_t i = 0; i < divisors->view.numElements(); ++i)
        scaling.divisors.push_back(weights::elementAsFloat(divisors->view, i));
      rotary = 2 * int64_t(scaling.divisors.size());
    }
    if (rotary > 0 && !checkRopeScaling(scaling, rotary, 10000.0, 8192))
      (void)ropeFrequencies(10000.0, rotary, scaling, 8192);
  }
  llvm::consumeError(type.takeError());
  llvm::consumeError(factor.takeError());
  llvm::consumeError(original.takeError());

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
