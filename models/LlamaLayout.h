//===- LlamaLayout.h - Hugging Face checkpoints in LLaMA's layout ---------===//
//
// Mistral, Mixtral, Qwen2 and Gemma checkpoints keep LlamaForCausalLM's
// config keys and tensor names (`model.layers.{layer}.self_attn.q_proj`,
// ...) and differ in a few settings. The families read the shared part
// here and their own keys in their folders, so that a key that two
// families spell alike is read, defaulted and diagnosed in one place.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_LLAMALAYOUT_H
#define TFMC_MODELS_LLAMALAYOUT_H

#include "models/Family.h"
#include "models/TensorMap.h"

namespace tfmc {

/// What the LLaMA-layout families default differently (transformers'
/// defaults for each config class).
struct LlamaLayoutDefaults {
  double normEps = 1e-6;
  /// The epsilon's key; null: rms_norm_eps, or layer_norm_eps for a
  /// LayerNorm family.
  const char *normEpsKey = nullptr;
  double ropeTheta = 10000.0;
  bool tiedEmbeddings = false;
  /// head_dim when config.json has none; 0: hidden_size / heads.
  int64_t headDim = 0;
  /// The fraction of each head's features RoPE rotates when config.json
  /// sets no partial_rotary_factor.
  double partialRotaryFactor = 1.0;
};

/// Reads the sizes, RMSNorm epsilon, RoPE settings, head size and tied
/// embeddings of a LLaMA-layout config.json into `c`. The RoPE base is
/// `rope_theta` (transformers 4.x) or `rope_parameters.rope_theta` (5.x);
/// its scaling is read by readHfRopeScaling (models/RopeScalingConfig.h).
llvm::Error readLlamaLayoutConfig(const Checkpoint &file, DecoderConfig &c,
                                  const LlamaLayoutDefaults &defaults);

/// The canonical weights of a LLaMA-layout checkpoint of `config`: Q/K/V
/// and output biases where `config` has them; `fused` projections as Phi-3
/// stores them (`self_attn.qkv_proj`, `mlp.gate_up_proj`); an ungated MLP
/// as StarCoder2 names it (`mlp.c_fc`, `mlp.c_proj`, biased or not).
llvm::Expected<WeightMap> mapLlamaLayoutWeights(const Checkpoint &file,
                                                const DecoderConfig &config,
                                                FusedProjections fused = {});

/// transformers' `layer_types` (5.x; Gemma 2 and 3 from 4.5x): each
/// layer's `full_attention` or `sliding_attention`, into
/// `c.attention.fullAttentionLayers`. False when config.json lists none.
llvm::Expected<bool> readHfLayerTypes(const ConfigSource &config,
                                      DecoderConfig &c);

/// Qwen's sliding window (Qwen2, Qwen3): with `use_sliding_window`,
/// transformers gives the layers from `max_window_layers` (default 28) on a
/// window of `sliding_window` positions and the others full attention (4.x);
/// `layer_types`, where present, names every layer's kind instead (5.x).
/// Without it every layer is full.
llvm::Error readQwenSlidingWindow(const ConfigSource &config, DecoderConfig &c);

/// An error unless config.json's `key` names `expected` (or is absent).
llvm::Error expectActivation(const ConfigSource &config, llvm::StringRef key,
                             llvm::StringRef expected,
                             llvm::StringRef fallback);

/// A family read from Hugging Face directories in LLaMA's layout, and from
/// GGUF files in llama.cpp's layout when it names a GGUF architecture: the
/// subclass gives its blocks, defaults and own keys; presets carry LLaMA's
/// byte-fallback tokenizer.
class LlamaLayoutFamily : public ModelFamily {
public:
  llvm::Expected<DecoderConfig> readConfig(const Checkpoint &file) const final;
  llvm::Expected<WeightMap> mapWeights(const Checkpoint &file,
                                       const DecoderConfig &config) const final;
  TokenizerSpec presetTokenizer() const override;

protected:
  /// The family's blocks before any key is read.
  virtual DecoderConfig architecture() const = 0;
  virtual LlamaLayoutDefaults defaults() const { return {}; }
  /// The projections the family's files store fused (both formats).
  virtual FusedProjections fusedProjections() const { return {}; }
  /// Reads the family's own keys into `c` (after the shared ones).
  virtual llvm::Error readOwnKeys(const ConfigSource &config,
                                  DecoderConfig &c) const = 0;
  /// Adjusts `c`, read from the GGUF `file`, to what llama.cpp's converter
  /// wrote for the family (after the shared keys); an error for what tfmc
  /// cannot build.
  virtual llvm::Error adaptToGguf(const Checkpoint &file,
                                  DecoderConfig &c) const {
    return llvm::Error::success();
  }
  /// A preset of the family's blocks at a size (a tiny test model).
  Preset preset(const char *name, int64_t dim, int64_t hidden, int64_t layers,
                int64_t heads, int64_t kvHeads, int64_t headDim, int64_t vocab,
                int64_t context) const;
};

} // namespace tfmc

#endif // TFMC_MODELS_LLAMALAYOUT_H
