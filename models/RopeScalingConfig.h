//===- RopeScalingConfig.h - RoPE scalings as model files state them ------===//
//
// The two spellings of a RoPE scaling that tfmc reads, into one
// RopeScaling (compiler/spec/RopeScaling.h computes the frequencies):
// config.json's `rope_scaling` (transformers 4.x) or `rope_parameters`
// (5.x), and a GGUF's `{arch}.rope.scaling.*` keys plus its
// `rope_freqs.weight` tensor. A scaling tfmc cannot apply is an error that
// names it; none is silently dropped.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_ROPESCALINGCONFIG_H
#define TFMC_MODELS_ROPESCALINGCONFIG_H

#include "models/Family.h"

namespace tfmc {

/// Reads config.json's RoPE scaling of a RoPE over `rotaryDim` features
/// into `c.ropeScaling`; `c.contextLength` (max_position_embeddings) and
/// `c.ropeTheta` must be read. Types: default, linear, dynamic, llama3,
/// yarn, longrope (and its older name su). `objects` are where it may be
/// (the first that names a type counts): a family whose layer kinds rotate
/// differently names its own (Gemma 3's
/// `rope_parameters.full_attention`).
llvm::Error readHfRopeScaling(const ConfigSource &config, int64_t rotaryDim,
                              DecoderConfig &c,
                              llvm::ArrayRef<const char *> objects = {
                                  "rope_scaling", "rope_parameters"});

/// Reads the fraction of each head's features that RoPE rotates (GPT-NeoX's
/// `rotary_pct`, Phi's `partial_rotary_factor`) from the first of `keys`
/// config.json sets, `fallback` when it sets none, into
/// `c.attention.rotaryDim` as transformers sizes it: int(head_dim *
/// fraction). `c.attention.headDim` must be read. A fraction outside
/// (0, 1], or one that leaves an odd or empty rotation, is an error naming
/// the key.
llvm::Error readHfPartialRotary(const ConfigSource &config,
                                llvm::ArrayRef<const char *> keys,
                                double fallback, DecoderConfig &c);

/// Reads a GGUF's RoPE scaling of `architecture` (`rope.scaling.type` none,
/// linear or yarn with `rope.scaling.factor`, `rope.scale_linear`,
/// `rope.scaling.original_context_length`, `rope.scaling.attn_factor`), and
/// a `rope_freqs.weight` tensor of per-pair divisors (llama.cpp's Llama 3.1
/// conversion), into `c.ropeScaling`.
llvm::Error readGgufRopeScaling(const Checkpoint &file,
                                llvm::StringRef architecture, int64_t rotaryDim,
                                DecoderConfig &c);

} // namespace tfmc

#endif // TFMC_MODELS_ROPESCALINGCONFIG_H
