//===- HfConfigKeys.h - transformers' standard config.json keys -----------===//
//
// The sizes most config classes of transformers spell alike (hidden_size,
// num_hidden_layers, ...) and the RoPE base, which families spell in a few
// ways. A family whose config.json uses these names reads them here, so
// each key is read, defaulted and diagnosed in one place.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_HFCONFIGKEYS_H
#define TFMC_MODELS_HFCONFIGKEYS_H

#include "compiler/spec/ConfigSource.h"
#include "compiler/spec/DecoderConfig.h"

#include "llvm/ADT/ArrayRef.h"

namespace tfmc {

/// Reads hidden_size, num_hidden_layers, num_attention_heads,
/// num_key_value_heads (default: the heads), intermediate_size (default:
/// 4 x hidden_size), vocab_size, max_position_embeddings (default:
/// `defaultContext`) and layer_norm_eps (default: `defaultEps`) into `c`;
/// the head size is hidden_size / num_attention_heads, which must divide.
llvm::Error readHfSizes(const ConfigSource &config, DecoderConfig &c,
                        int64_t defaultContext, double defaultEps);

/// The RoPE base from the first of `keys` config.json sets (in priority
/// order), `fallback` when it sets none; read in f32, the network's type.
llvm::Error readHfRopeBase(const ConfigSource &config,
                           llvm::ArrayRef<const char *> keys, double fallback,
                           DecoderConfig &c);

} // namespace tfmc

#endif // TFMC_MODELS_HFCONFIGKEYS_H
