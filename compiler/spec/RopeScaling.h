//===- RopeScaling.h - The frequencies of a scaled rotary embedding -------===//
//
// One place that turns a RoPE scaling (DecoderConfig's RopeScaling, read by
// the Hugging Face and GGUF readers alike) into what the network rotates
// by: an inverse frequency per feature pair and a factor on cos and sin.
// The formulas are transformers' `_compute_*_parameters` (which llama.cpp's
// ggml_rope_ext computes the same way).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_SPEC_ROPESCALING_H
#define TFMC_COMPILER_SPEC_ROPESCALING_H

#include "compiler/spec/DecoderConfig.h"

#include <optional>
#include <string>
#include <vector>

namespace tfmc {

/// What a RoPE rotates pair `i` by at position `p`: the angle
/// `p * inverse[i]`, its cos and sin multiplied by `attentionFactor`.
struct RopeFrequencies {
  std::vector<float> inverse;
  float attentionFactor = 1.0f;
};

/// The name a config spells `kind` with ("llama3", "yarn", ...).
const char *ropeScalingName(RopeScalingKind kind);

/// Why `scaling` cannot be applied to a RoPE of `rotaryDim` features and
/// base `theta` in a network of `context` positions (0: not yet known, as
/// when a config is read), or nothing when it can. The reasons name the
/// parameters as transformers does (`factor`, `short_factor`, ...).
std::optional<std::string> checkRopeScaling(const RopeScaling &scaling,
                                            int64_t rotaryDim, double theta,
                                            int64_t context);

/// Whether `scaling` changes the frequencies of a network that stays within
/// the context checkRopeScaling allows (Dynamic NTK does not).
bool scalesFrequencies(const RopeScaling &scaling);

/// The frequencies of a RoPE with base `theta` over `rotaryDim` features
/// (pairs `rotaryDim / 2`) scaled by `scaling`, in a network of `context`
/// positions. Unscaled, they are exactly the default
/// `theta^(-2i / rotaryDim)` in f32. `scaling` must pass checkRopeScaling.
/// LongRoPE divides by its long factors when `context` passes the original
/// context, else by its short ones: transformers switches per sequence
/// length, llama.cpp per context, and a compiled network has one context.
RopeFrequencies ropeFrequencies(double theta, int64_t rotaryDim,
                                const RopeScaling &scaling, int64_t context);

} // namespace tfmc

#endif // TFMC_COMPILER_SPEC_ROPESCALING_H
