//===- Family.cpp - The Gemma 2 family ------------------------------------===//
//
// Gemma's blocks (models/gemma/Gemma.h) with a norm before and after each
// sublayer (input_layernorm, post_attention_layernorm,
// pre_feedforward_layernorm, post_feedforward_layernorm), attention scores
// scaled by query_pre_attn_scalar^-1/2 and soft-capped at
// attn_logit_softcapping, logits soft-capped at final_logit_softcapping,
// and layers alternating between a sliding window (even layers) and global
// attention. Hugging Face directories, model_type gemma2, and GGUF files,
// architecture gemma2.
//
//===----------------------------------------------------------------------===//
#include "models/gemma/Gemma.h"

using namespace tfmc;

namespace {

/// A soft cap from config.json: `fallback` when absent, none when null.
llvm::Error readSoftcap(const ConfigSource &config, const char *key,
                        double fallback, float &out) {
  if (config.isNull(key)) {
    out = 0.0f;
    return llvm::Error::success();
  }
  return config.read(key, out, fallback);
}

class Gemma2Family final : public gemma::GemmaLayoutFamily {
public:
  llvm::StringRef name() const override { return "gemma2"; }
  llvm::StringRef huggingFaceModelType() const override { return "gemma2"; }
  llvm::StringRef ggufArchitecture() const override { return "gemma2"; }

  std::vector<Preset> presets() const override {
    // Four layers, windows of 16 in layers 0 and 2; head_dim 24.
    Preset tiny = gemmaPreset("gemma2-tiny", 64, 172, 4, 4, 2, 24, 259, 256);
    gemma::slideLayers(tiny.config, 16, 2);
    return {tiny};
  }

protected:
  DecoderConfig architecture() const override {
    DecoderConfig c = gemma::architecture();
    c.normPlacement = NormPlacement::Sandwich;
    // Gemma2Config's defaults.
    c.attention.softcap = 50.0f;
    c.finalLogitSoftcap = 30.0f;
    return c;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = gemma::readCommonKeys(config, c))
      return err;
    if (auto err = gemma::readQueryScale(config, c))
      return err;
    if (auto err = readSoftcap(config, "attn_logit_softcapping", 50.0,
                               c.attention.softcap))
      return err;
    if (auto err = readSoftcap(config, "final_logit_softcapping", 30.0,
                               c.finalLogitSoftcap))
      return err;
    // Even layers slide, odd layers are global.
    return gemma::readSlidingLayers(config, c, 2, nullptr);
  }

  llvm::Error adaptToGguf(const Checkpoint &file,
                          DecoderConfig &c) const override {
    gemma::adaptToGguf(c);
    // llama.cpp: a window of attention.sliding_window (4096 when absent)
    // on even layers; the 27B model (46 layers) scales by
    // 1/sqrt(hidden / heads).
    int64_t window = 0;
    if (auto err =
            file.config.read("gemma2.attention.sliding_window", window, 4096))
      return err;
    gemma::slideLayers(c, window, 2);
    gemma::ggufQueryScale(c, 46);
    return llvm::Error::success();
  }
};

} // namespace

const ModelFamily &tfmc::gemma2Family() {
  static const Gemma2Family family;
  return family;
}
