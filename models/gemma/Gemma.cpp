//===- Gemma.cpp - What the Gemma generations share -----------------------===//
#include "models/gemma/Gemma.h"

#include "models/LlamaLayout.h"
#include "models/llama/Llama.h"

#include <cmath>

using namespace tfmc;

LlamaLayoutDefaults gemma::GemmaLayoutFamily::defaults() const {
  LlamaLayoutDefaults d;
  d.tiedEmbeddings = true;
  d.headDim = 256;
  return d;
}

Preset gemma::GemmaLayoutFamily::gemmaPreset(const char *name, int64_t dim,
                                             int64_t hidden, int64_t layers,
                                             int64_t heads, int64_t kvHeads,
                                             int64_t headDim, int64_t vocab,
                                             int64_t context) const {
  Preset tiny = preset(name, dim, hidden, layers, heads, kvHeads, headDim,
                       vocab, context);
  tiny.config.embeddingScale = float(std::sqrt(double(dim)));
  return tiny;
}

DecoderConfig gemma::architecture() {
  DecoderConfig c = llama::architecture(RopeLayout::HalfSplit);
  c.mlp = MlpKind::GeGLU;
  c.normUnitOffset = true;
  return c;
}

llvm::Error gemma::readCommonKeys(const ConfigSource &config,
                                  DecoderConfig &c) {
  if (auto err = expectActivation(config, "hidden_activation",
                                  "gelu_pytorch_tanh", "gelu_pytorch_tanh"))
    return err;
  // attention_bias adds Q/K/V/O biases tfmc does not map.
  if (config.isSet("attention_bias"))
    return llvm::createStringError("attention_bias in " + config.describe() +
                                   " is not supported");
  // Multiplied in the activations' precision: f32 here.
  c.embeddingScale = float(std::sqrt(double(c.dim)));
  return llvm::Error::success();
}

void gemma::adaptToGguf(DecoderConfig &c) {
  c.normUnitOffset = false;
  c.embeddingScale = float(std::sqrt(double(c.dim)));
}

llvm::Error gemma::readQueryScale(const ConfigSource &config,
                                  DecoderConfig &c) {
  auto scalar = config.positiveReal("query_pre_attn_scalar", 256.0);
  if (!scalar)
    return scalar.takeError();
  c.attention.scoreScale = float(1.0 / std::sqrt(*scalar));
  return llvm::Error::success();
}

void gemma::slideLayers(DecoderConfig &c, int64_t window, int64_t pattern) {
  AttentionSettings &a = c.attention;
  a.slidingWindow = window;
  a.fullAttentionLayers.assign(size_t(c.numLayers), false);
  for (int64_t layer = 0; layer < c.numLayers; ++layer)
    a.fullAttentionLayers[size_t(layer)] = (layer + 1) % pattern == 0;
}

llvm::Error gemma::readSlidingLayers(const ConfigSource &config,
                                     DecoderConfig &c, int64_t pattern,
                                     const char *patternKey) {
  int64_t window = 0;
  if (auto err = config.read("sliding_window", window, 4096))
    return err;
  if (patternKey)
    if (auto err = config.read(patternKey, pattern, pattern))
      return err;
  slideLayers(c, window, pattern);
  auto listed = readHfLayerTypes(config, c);
  if (!listed)
    return listed.takeError();
  return llvm::Error::success();
}

void gemma::ggufQueryScale(DecoderConfig &c, int64_t largeLayers) {
  const AttentionSettings &a = c.attention;
  double scalar = c.numLayers == largeLayers ? double(c.dim / a.numHeads)
                                             : double(a.headDim);
  c.attention.scoreScale = float(1.0 / std::sqrt(scalar));
}
