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
    return readQwenSlidingWindow(config, c);
  }
};

} // namespace

const ModelFamily &tfmc::qwen2Family() {
  static const Qwen2Family family;
  return family;
}
