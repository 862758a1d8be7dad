//===- Family.cpp - The Mixtral family: Mistral with a mixture of experts -===//
//
// Mistral's blocks with the MLP replaced by a mixture of SwiGLU experts
// (`num_local_experts`, `num_experts_per_tok` chosen per token by a linear
// router, weighted by the softmax over the chosen router logits). Hugging
// Face directories, model_type mixtral: `block_sparse_moe.gate` is the
// router, `block_sparse_moe.experts.{e}.w1/w3/w2` the gate, up and down
// projections of expert e.
//
//===----------------------------------------------------------------------===//
#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

using namespace tfmc;

namespace {

class MixtralFamily final : public LlamaLayoutFamily {
public:
  llvm::StringRef name() const override { return "mixtral"; }
  llvm::StringRef huggingFaceModelType() const override { return "mixtral"; }

  // SentencePiece's <s> and </s>.
  SpecialTokens specialTokens() const override { return {1, 2}; }

  std::vector<Preset> presets() const override {
    Preset tiny = preset("mixtral-tiny", 64, 172, 2, 4, 2, 16, 259, 256);
    tiny.config.moe = {4, 2, ExpertRouting::TopKSoftmax};
    // The benchmark shape: llama-42m's with 8 experts, 2 per token.
    Preset bench = preset("mixtral-8x42m", 512, 1376, 8, 8, 8, 64, 32000, 1024);
    bench.config.moe = {8, 2, ExpertRouting::TopKSoftmax};
    return {tiny, bench};
  }

protected:
  DecoderConfig architecture() const override {
    return llama::architecture(RopeLayout::HalfSplit);
  }

  LlamaLayoutDefaults defaults() const override {
    LlamaLayoutDefaults d;
    d.normEps = 1e-5;
    d.ropeTheta = 1e6;
    return d;
  }

  llvm::Error readOwnKeys(const ConfigSource &config,
                          DecoderConfig &c) const override {
    if (auto err = expectActivation(config, "hidden_act", "silu", "silu"))
      return err;
    if (auto err = config.read("num_local_experts", c.moe.experts, 8))
      return err;
    if (auto err = config.read("num_experts_per_tok", c.moe.topK, 2))
      return err;
    if (c.moe.topK > c.moe.experts)
      return llvm::createStringError(
          "num_experts_per_tok " + llvm::Twine(c.moe.topK) + " in " +
          config.describe() + " exceeds num_local_experts " +
          llvm::Twine(c.moe.experts));
    c.moe.routing = ExpertRouting::TopKSoftmax;
    if (config.isSet("sliding_window"))
      return config.read("sliding_window", c.attention.slidingWindow);
    return llvm::Error::success();
  }
};

} // namespace

const ModelFamily &tfmc::mixtralFamily() {
  static const MixtralFamily family;
  return family;
}
