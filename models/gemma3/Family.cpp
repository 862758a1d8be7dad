//===- Family.cpp - The Gemma 3 family (text) -----------------------------===//
//
// Gemma 2's layer (a norm before and after each sublayer, scores scaled by
// query_pre_attn_scalar^-1/2) with Qwen3's per-head query and key RMSNorms
// (scaling by 1 + weight, as all of Gemma's norms), five sliding-window
// layers to each global one, and two RoPEs: the global layers rotate at
// rope_theta (1e6) with the config's scaling, the sliding ones at
// rope_local_base_freq (1e4), unscaled. No soft caps unless config.json
// sets them. Hugging Face directories, model_type gemma3_text (the text
// model that Gemma3ForCausalLM runs), and GGUF files, architecture gemma3.
//
//===----------------------------------------------------------------------===//
#include "models/HfConfigKeys.h"
#include "models/RopeScalingConfig.h"
#include "models/gemma/Gemma.h"

using namespace tfmc;

namespace {

/// transformers 5.x: rope_parameters per layer kind.
constexpr const char *kGlobalRope = "rope_parameters.full_attention";
constexpr const char *kLocalRope = "rope_parameters.sliding_attention";

class Gemma3Family final : public gemma::GemmaLayoutFamily {
public:
  llvm::StringRef name() const override { return "gemma3"; }
  llvm::StringRef huggingFaceModelType() const override {
    return "gemma3_text";
  }
  llvm::StringRef ggufArchitecture() const override { return "gemma3"; }

  std::vector<Preset> presets() const override {
    // Six layers, the last global; windows of 16; head_dim 24.
    Preset tiny = gemmaPreset("gemma3-tiny", 64, 172, 6, 4, 2, 24, 259, 256);
    gemma::slideLayers(tiny.config, 16, 6);
    return {tiny};
  }

protected:
  DecoderConfig architecture() const override {
    DecoderConfig c = gemma::architecture();
    c.normPlacement = NormPlacement::Sandwich;
    c.attention.qkNorm = QkNorm::PerHead;
    c.localRopeTheta = 10000.0f;
    return c;
  }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d = GemmaLayoutFamily::defaults();
    d.ropeTheta = 1000000.0;
    return d;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = gemma::readCommonKeys(config, c))
      return err;
    if (auto err = gemma::readQueryScale(config, c))
      return err;
    // Gemma3TextConfig leaves both caps off; a config that sets one gets it.
    if (auto err =
            config.read("attn_logit_softcapping", c.attention.softcap, 0.0))
      return err;
    if (auto err =
            config.read("final_logit_softcapping", c.finalLogitSoftcap, 0.0))
      return err;
    if (auto err =
            gemma::readSlidingLayers(config, c, 6, "sliding_window_pattern"))
      return err;
    if (config.isSet(kGlobalRope) || config.isSet(kLocalRope))
      return readRopesPerLayerKind(config, c);
    return config.read("rope_local_base_freq", c.localRopeTheta, 10000.0);
  }

  llvm::Error adaptToGguf(const Checkpoint &file,
                          DecoderConfig &c) const override {
    gemma::adaptToGguf(c);
    // llama.cpp: five sliding layers of attention.sliding_window to each
    // global one, the sliding ones at base 1e4 unscaled; the 27B model (62
    // layers) scales by 1/sqrt(hidden / heads).
    int64_t window = 0;
    if (auto err =
            file.config.read("gemma3.attention.sliding_window", window, 4096))
      return err;
    gemma::slideLayers(c, window, 6);
    gemma::ggufQueryScale(c, 62);
    c.localRopeTheta = 10000.0f;
    return llvm::Error::success();
  }

private:
  /// transformers 5.x: `rope_parameters: {full_attention: {rope_type,
  /// rope_theta, ...}, sliding_attention: {...}}`. The sliding layers'
  /// RoPE must be unscaled (as every released Gemma 3 has it).
  static llvm::Error readRopesPerLayerKind(const ConfigSource &config,
                                           DecoderConfig &c) {
    if (auto err = readHfRopeBase(config,
                                  {"rope_parameters.full_attention.rope_theta"},
                                  1000000.0, c))
      return err;
    if (auto err = readHfRopeScaling(config, c.attention.rotatedFeatures(), c,
                                     {kGlobalRope}))
      return err;
    auto local = config.string(std::string(kLocalRope) + ".rope_type",
                               std::string("default"));
    if (!local)
      return local.takeError();
    if (*local != "default")
      return llvm::createStringError(
          "unsupported " + std::string(kLocalRope) + ".rope_type '" + *local +
          "' in " + config.describe() +
          " (the sliding-window layers' RoPE must be unscaled: default)");
    return config.read(std::string(kLocalRope) + ".rope_theta",
                       c.localRopeTheta, 10000.0);
  }
};

} // namespace

const ModelFamily &tfmc::gemma3Family() {
  static const Gemma3Family family;
  return family;
}
