//===- HfConfigKeys.cpp - transformers' standard config.json keys ---------===//
#include "models/HfConfigKeys.h"

using namespace tfmc;

llvm::Error tfmc::readHfSizes(const ConfigSource &config, DecoderConfig &c,
                              int64_t defaultContext, double defaultEps) {
  AttentionSettings &a = c.attention;
  if (auto err = config.read("hidden_size", c.dim))
    return err;
  if (auto err = config.read("num_hidden_layers", c.numLayers))
    return err;
  if (auto err = config.read("num_attention_heads", a.numHeads))
    return err;
  if (auto err = config.read("num_key_value_heads", a.numKVHeads, a.numHeads))
    return err;
  if (auto err = config.read("intermediate_size", c.hiddenDim, 4 * c.dim))
    return err;
  if (auto err = config.read("vocab_size", c.vocabSize))
    return err;
  if (auto err = config.readContextLength("max_position_embeddings",
                                          c.contextLength, defaultContext))
    return err;
  if (auto err = config.read("layer_norm_eps", c.normEps, defaultEps))
    return err;
  if (c.dim % a.numHeads != 0)
    return llvm::createStringError(
        config.describe() + ": hidden_size " + llvm::Twine(c.dim) +
        " is not divisible by num_attention_heads " + llvm::Twine(a.numHeads));
  a.headDim = c.dim / a.numHeads;
  return llvm::Error::success();
}

llvm::Error tfmc::readHfRopeBase(const ConfigSource &config,
                                 llvm::ArrayRef<const char *> keys,
                                 double fallback, DecoderConfig &c) {
  for (const char *key : keys)
    if (config.isSet(key))
      return config.read(key, c.ropeTheta);
  c.ropeTheta = static_cast<float>(fallback);
  return llvm::Error::success();
}
