//===- T5.h - The T5 family, internal declarations --------------*- C++ -*-===//
#ifndef TFMC_MODELS_T5_T5_H
#define TFMC_MODELS_T5_T5_H

#include "models/Family.h"

namespace tfmc::t5 {

/// T5's blocks: an encoder-decoder of pre-norm blocks with RMS norms (T5's
/// LayerNorm has no mean and no bias), no biases anywhere, unscaled
/// attention scores and a relative position bias per stack.
DecoderConfig architecture();

llvm::Expected<DecoderConfig> readHuggingFaceConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapHuggingFaceWeights(const Checkpoint &file,
                                                const DecoderConfig &config);

/// llama.cpp's `t5` GGUF files.
llvm::Expected<DecoderConfig> readGgufConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapGgufWeights(const Checkpoint &file,
                                         const DecoderConfig &config);

/// A tied head reads the decoder's output scaled by d_model^-0.5: the
/// factor is folded into the decoder's final norm weight, which multiplies
/// that output anyway.
llvm::Error foldTiedHeadScale(const DecoderConfig &config, WeightMap &weights);

std::vector<Preset> presets();
TokenizerSpec presetTokenizer();

} // namespace tfmc::t5

#endif // TFMC_MODELS_T5_T5_H
