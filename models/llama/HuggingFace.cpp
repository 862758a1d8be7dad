//===- HuggingFace.cpp - LLaMA in Hugging Face directories ----------------===//
//
// config.json keys of LlamaConfig; tensors of LlamaForCausalLM, already
// [out, in] (models/LlamaLayout.h). Hugging Face rotates the halves of each
// head (half-split RoPE).
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

llvm::Expected<DecoderConfig>
tfmc::llama::readHuggingFaceConfig(const Checkpoint &file) {
  const ConfigSource &config = file.config;
  DecoderConfig c = architecture(RopeLayout::HalfSplit);
  if (auto err = readLlamaLayoutConfig(file, c, LlamaLayoutDefaults{}))
    return std::move(err);
  if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
    return std::move(err);
  for (const char *key : {"attention_bias", "mlp_bias"})
    if (config.isSet(key))
      return llvm::createStringError(llvm::Twine(key) + " in " +
                                     config.describe() + " is not supported");
  return c;
}

llvm::Expected<WeightMap>
tfmc::llama::mapHuggingFaceWeights(const Checkpoint &file,
                                   const DecoderConfig &config) {
  return mapLlamaLayoutWeights(file, config);
}
