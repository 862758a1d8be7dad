//===- Bert.h - The BERT family, internal declarations ----------*- C++ -*-===//
#ifndef TFMC_MODELS_BERT_BERT_H
#define TFMC_MODELS_BERT_BERT_H

#include "models/Family.h"

namespace tfmc::bert {

/// BERT's blocks: an encoder of post-LayerNorm blocks, learned positions, a
/// LayerNorm of the embeddings, biases on every projection, the exact GELU.
DecoderConfig architecture();

llvm::Expected<DecoderConfig> readHuggingFaceConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapHuggingFaceWeights(const Checkpoint &file,
                                                const DecoderConfig &config);

std::vector<Preset> presets();
TokenizerSpec presetTokenizer();

} // namespace tfmc::bert

#endif // TFMC_MODELS_BERT_BERT_H
