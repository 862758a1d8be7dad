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

/// The encoder's keys of a BertConfig-shaped config.json (sizes, epsilon,
/// activation, position kind; BertConfig's defaults) into `c`: shared with
/// RoBERTa, whose config class keeps them.
llvm::Error readHuggingFaceEncoder(const ConfigSource &config,
                                   DecoderConfig &c);

/// The embeddings (segment 0 folded into the positions) and layers of a
/// BertModel-shaped checkpoint whose tensors start with `prefix` ("bert.",
/// "roberta.") into `weights`; the position table's first
/// `positionOffset` rows are not used (RoBERTa's padding_idx + 1).
llvm::Error mapHuggingFaceEncoder(const Checkpoint &file,
                                  const DecoderConfig &config,
                                  llvm::StringRef prefix,
                                  int64_t positionOffset, WeightMap &weights);

/// llama.cpp's `bert` GGUF files: the encoder without a masked-LM head.
llvm::Expected<DecoderConfig> readGgufConfig(const Checkpoint &file);
llvm::Expected<WeightMap> mapGgufWeights(const Checkpoint &file,
                                         const DecoderConfig &config);

/// Adds row 0 of `segments` (the token type embeddings, [types, dim]) to
/// every row of the position table in `weights`: every sequence the
/// executable runs is one segment.
llvm::Error foldFirstSegment(const weights::TensorView &segments,
                             const DecoderConfig &config, WeightMap &weights);

std::vector<Preset> presets();
TokenizerSpec presetTokenizer();

} // namespace tfmc::bert

#endif // TFMC_MODELS_BERT_BERT_H
