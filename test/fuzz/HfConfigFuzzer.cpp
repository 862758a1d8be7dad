//===- HfConfigFuzzer.cpp - Fuzz the config.json reader -------------------===//
//
// Input: a config.json. Opens it as the Hugging Face frontend does and reads
// the keys the gpt2 and llama families read, as every kind of value.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/HfConfig.h"
#include "test/fuzz/FuzzSupport.h"

#include "llvm/Support/Error.h"

using namespace tfmc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfm::fuzz::writeScratch(
      "config.json",
      std::string_view(reinterpret_cast<const char *>(data), size));
  auto config = frontends::HfConfig::open(tfm::fuzz::scratchDir());
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  frontends::HfConfig &hf = **config;
  (void)hf.describe();
  for (const char *key : {"model_type",
                          "architectures",
                          "hidden_size",
                          "n_embd",
                          "num_hidden_layers",
                          "n_layer",
                          "num_attention_heads",
                          "n_head",
                          "num_key_value_heads",
                          "intermediate_size",
                          "n_inner",
                          "vocab_size",
                          "max_position_embeddings",
                          "n_positions",
                          "rope_theta",
                          "rope_parameters",
                          "rope_scaling",
                          "rms_norm_eps",
                          "layer_norm_epsilon",
                          "tie_word_embeddings",
                          "torch_dtype",
                          "dtype",
                          "bos_token_id",
                          "eos_token_id",
                          "head_dim",
                          "hidden_act"}) {
    (void)hf.isSet(key);
    (void)hf.arraySize(key);
    llvm::consumeError(hf.positive(key, 1).takeError());
    llvm::consumeError(hf.positive(key, std::nullopt).takeError());
    llvm::consumeError(hf.positiveReal(key, 1.0).takeError());
    llvm::consumeError(hf.string(key, "x").takeError());
    llvm::consumeError(hf.flag(key, false).takeError());
  }
  return 0;
}
