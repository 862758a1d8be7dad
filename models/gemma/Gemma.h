//===- Gemma.h - What the Gemma generations share ---------------*- C++ -*-===//
//
// Gemma, Gemma 2 and Gemma 3 keep LLaMA's layout with the same choices:
// RMSNorms scaling by (1 + weight), token embeddings scaled by
// sqrt(hidden_size), a GeGLU feed-forward, a head size of their own and a
// tied head. Gemma 2 and 3 add norms after each sublayer and alternate
// sliding-window and global layers. Each generation's folder reads its own
// keys through these.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_GEMMA_GEMMA_H
#define TFMC_MODELS_GEMMA_GEMMA_H

#include "models/LlamaLayout.h"

namespace tfmc::gemma {

/// Gemma's blocks before any key is read.
DecoderConfig architecture();

/// A Gemma generation as a LLaMA-layout family: Gemma's tokenizer ids,
/// GemmaConfig's defaults (a tied head, head_dim 256) and presets with the
/// embedding scale.
class GemmaLayoutFamily : public LlamaLayoutFamily {
public:
  // Gemma's tokenizer: <eos> 1, <bos> 2. The byte tokenizer of the presets
  // has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const final { return {1, 2}; }

protected:
  LlamaLayoutDefaults defaults() const override;
  /// preset() with the embeddings scaled by sqrt(dim), as the keys say.
  Preset gemmaPreset(const char *name, int64_t dim, int64_t hidden,
                     int64_t layers, int64_t heads, int64_t kvHeads,
                     int64_t headDim, int64_t vocab, int64_t context) const;
};

/// The keys every generation reads alike: hidden_activation (transformers
/// runs gelu_pytorch_tanh whatever hidden_act says), attention_bias (not
/// mapped: an error when set), and the embedding scale.
llvm::Error readCommonKeys(const ConfigSource &config, DecoderConfig &c);

/// What llama.cpp's converter writes for every generation: norm weights
/// stored as 1 + w (a plain RMSNorm then computes Gemma's), and no
/// embedding scale.
void adaptToGguf(DecoderConfig &c);

/// Gemma 2 and 3's score factor, query_pre_attn_scalar^-1/2 (default 256).
llvm::Error readQueryScale(const ConfigSource &config, DecoderConfig &c);

/// Gemma 2 and 3's layer kinds: `sliding_window` positions (default 4096)
/// for the layers `layer_types` calls sliding_attention, or, without it,
/// for all but every `pattern`-th layer (`patternKey`, when config.json
/// names one, overrides `pattern`).
llvm::Error readSlidingLayers(const ConfigSource &config, DecoderConfig &c,
                              int64_t pattern, const char *patternKey);

/// All but every `pattern`-th layer see a window of `window` positions.
void slideLayers(DecoderConfig &c, int64_t window, int64_t pattern);

/// The score factor llama.cpp uses for a GGUF, which does not store
/// query_pre_attn_scalar: 1/sqrt(hidden_size / heads) for the 27B model
/// (`largeLayers` layers), else 1/sqrt(head_dim), as Google's checkpoints
/// set it.
void ggufQueryScale(DecoderConfig &c, int64_t largeLayers);

} // namespace tfmc::gemma

#endif // TFMC_MODELS_GEMMA_GEMMA_H
