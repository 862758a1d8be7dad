//===- Family.cpp - The Qwen2 family: LLaMA with Q/K/V biases -------------===//
//
// LLaMA's blocks with biases on the query, key and value projections (not
// on the output projection), an untied head by default and a large RoPE
// base. With `use_sliding_window`, transformers gives the layers from
// `max_window_layers` on a window of `sliding_window` positions and the
// others full attention (4.x); transformers 5.x (and 4.x since layer_types)
// writes the kind of every layer as `layer_types`, which then decides.
// Hugging Face directories, model_type qwen2, and GGUF files, architecture
// qwen2.
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class Qwen2Family final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "qwen2"; }
  llvm::StringRef huggingFaceModelType() const override { return "qwen2"; }
  // llama.cpp rotates Qwen2's halves (NEOX) and stores Q and K unpermuted.
  llvm::StringRef ggufArchitecture() const override { return "qwen2"; }

  // <|endoftext|> ends a sequence; Qwen2 adds no BOS of its own. The byte
  // tokenizer of the presets has <s> and </s> at 1 and 2.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    return {preset("qwen2-tiny", 64, 172, 2, 4, 2, 16, 259, 256)};
  }

protected:
  DecoderConfig architecture() const override {
    DecoderConfig c = llama::architecture(RopeLayout::HalfSplit);
    c.attention.qkvBias = true;
    return c;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
      return err;
    auto windowed = config.flag("use_sliding_window", false);
    if (!windowed)
      return windowed.takeError();
    // Without it, transformers drops sliding_window: every layer is full.
    if (!*windowed)
      return llvm::Error::success();
    AttentionSettings &a = c.attention;
    if (!config.isSet("sliding_window"))
      return llvm::createStringError(
          "use_sliding_window in " + config.describe() +
          " needs a sliding_window (the window's positions)");
    if (auto err = config.read("sliding_window", a.slidingWindow))
      return err;
    a.fullAttentionLayers.assign(size_t(c.numLayers), false);
    if (std::optional<uint64_t> listed = config.arraySize("layer_types")) {
      if (int64_t(*listed) != c.numLayers)
        return llvm::createStringError("layer_types in " + config.describe() +
                                       " lists " + llvm::Twine(*listed) +
                                       " layers but num_hidden_layers is " +
                                       llvm::Twine(c.numLayers));
      for (int64_t layer = 0; layer < c.numLayers; ++layer) {
        std::string key = "layer_types." + std::to_string(layer);
        auto kind = config.string(key);
        if (!kind)
          return kind.takeError();
        if (*kind != "full_attention" && *kind != "sliding_attention")
          return llvm::createStringError(
              "unsupported " + key + " '" + *kind + "' in " +
              config.describe() +
              " (supported: full_attention, sliding_attention)");
        a.fullAttentionLayers[size_t(layer)] = *kind == "full_attention";
      }
      return llvm::Error::success();
    }
    // Qwen2Config's default is 28; 0 windows every layer.
    auto fullLayers = config.nonNegative("max_window_layers", 28);
    if (!fullLayers)
      return fullLayers.takeError();
    for (int64_t layer = 0; layer < std::min(*fullLayers, c.numLayers); ++layer)
      a.fullAttentionLayers[size_t(layer)] = true;
    return llvm::Error::success();
  }
};

} // namespace

const ModelFamily &tfmc::qwen2Family() {
  static const Qwen2Family family;
  return family;
}
