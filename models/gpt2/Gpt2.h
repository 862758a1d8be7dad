//===- Gpt2.h - The GPT-2 family, internal declarations ---------*- C++ -*-===//
#ifndef TFMC_MODELS_GPT2_GPT2_H
#define TFMC_MODELS_GPT2_GPT2_H

#include "models/Family.h"

namespace tfmc::gpt2 {

/// GPT-2's blocks: pre-LayerNorm, learned positions, GELU (tanh) MLP,
/// biases on every projection, the head tied to the token embedding.
DecoderConfig architecture();

llvm::Expected<DecoderConfig> readHuggingFaceConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapHuggingFaceWeights(const Checkpoint &file,
                                                const DecoderConfig &config);

std::vector<Preset> presets();
TokenizerSpec presetTokenizer();

} // namespace tfmc::gpt2

#endif // TFMC_MODELS_GPT2_GPT2_H
