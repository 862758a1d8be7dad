//===- HfConfigFuzzer.cpp - Fuzz the config.json reader -------------------===//
//
// Input: a config.json. Opens it as the Hugging Face frontend does and reads
// the keys the gpt2 and llama families read, as every kind of value, and
// turns LongRoPE factor lists into frequencies (compiler/spec/RopeScaling.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/HfConfig.h"
#include "compiler/spec/RopeScaling.h"
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
                          "rope_scaling.rope_type",
                          "rope_scaling.factor",
                          "rope_scaling.short_factor",
                          "rope_scaling.long_factor",
                          "rope_scaling.original_max_position_embeddings",
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
    llvm::consumeError(hf.reals(key).takeError());
  }
  // LongRoPE's factor lists, through the check and the frequencies.
  auto shortFactors = hf.reals("rope_scaling.short_factor");
  auto longFactors = hf.reals("rope_scaling.long_factor");
  if (shortFactors && longFactors) {
    RopeScaling scaling;
    scaling.kind = RopeScalingKind::LongRope;
    scaling.shortFactors = std::move(*shortFactors);
    scaling.longFactors = std::move(*longFactors);
    scaling.originalContext = 4096;
    scaling.factor = 2.0;
    int64_t rotary = 2 * int64_t(scaling.shortFactors.size());
    if (rotary > 0 && rotary <= 4096 &&
        !checkRopeScaling(scaling, rotary, 10000.0, 8192))
      (void)ropeFrequencies(10000.0, rotary, scaling, 8192);
  } else {
    llvm::consumeError(shortFactors.takeError());
    llvm::consumeError(longFactors.takeError());
  }
  return 0;
}
