//===- Llama.h - The LLaMA family, internal declarations --------*- C++ -*-===//
//
// One reader per format the family comes in (Hugging Face, GGUF, llama2.c),
// each with its config keys and tensor-name map, and the presets.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_LLAMA_LLAMA_H
#define TFMC_MODELS_LLAMA_LLAMA_H

#include "models/Family.h"

namespace tfmc::llama {

/// LLaMA's blocks: pre-RMSNorm, rotary positions (in `layout`), SwiGLU, no
/// biases.
DecoderConfig architecture(RopeLayout layout);

llvm::Expected<DecoderConfig> readHuggingFaceConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapHuggingFaceWeights(const Checkpoint &file,
                                                const DecoderConfig &config);

llvm::Expected<DecoderConfig> readGgufConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapGgufWeights(const Checkpoint &file,
                                         const DecoderConfig &config);

llvm::Expected<DecoderConfig> readLlama2cConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapLlama2cWeights(const Checkpoint &file,
                                            const DecoderConfig &config);

std::vector<Preset> presets();
TokenizerSpec presetTokenizer();

} // namespace tfmc::llama

#endif // TFMC_MODELS_LLAMA_LLAMA_H
