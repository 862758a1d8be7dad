//===- RopeScalingConfig.cpp - RoPE scalings as model files state them ----===//
#include "models/RopeScalingConfig.h"

#include "compiler/spec/RopeScaling.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace tfmc;

namespace {

/// `check`'s verdict on `c.ropeScaling` as an error naming `where`.
llvm::Error checkScaling(const DecoderConfig &c, int64_t rotaryDim,
                         const llvm::Twine &where) {
  if (std::optional<std::string> why =
          checkRopeScaling(c.ropeScaling, rotaryDim, c.ropeTheta, 0))
    return llvm::createStringError(
        "RoPE scaling '" + llvm::Twine(ropeScalingName(c.ropeScaling.kind)) +
        "' in " + where + ": " + *why);
  return llvm::Error::success();
}

} // namespace

llvm::Error tfmc::readHfPartialRotary(const ConfigSource &config,
                                      llvm::ArrayRef<const char *> keys,
                                      double fallback, DecoderConfig &c) {
  double fraction = fallback;
  llvm::StringRef key = keys.front();
  for (const char *candidate : keys)
    if (config.isSet(candidate)) {
      key = candidate;
      auto value = config.positiveReal(candidate);
      if (!value)
        return value.takeError();
      fraction = *value;
      break;
    }
  int64_t headDim = c.attention.headDim;
  // transformers truncates: int(head_dim * fraction).
  auto rotary = static_cast<int64_t>(static_cast<double>(headDim) * fraction);
  if (fraction > 1.0 || rotary < 2 || rotary % 2 != 0) {
    std::string stated;
    llvm::raw_string_ostream(stated) << llvm::format("%g", fraction);
    return llvm::createStringError(
        key + " " + stated + " in " + config.describe() + " rotates " +
        llvm::Twine(rotary) + " of the head's " + llvm::Twine(headDim) +
        " features; RoPE needs an even number of them, at least 2 and at "
        "most the head size");
  }
  c.attention.rotaryDim = rotary == headDim ? 0 : rotary;
  return llvm::Error::success();
}

llvm::Error tfmc::readHfRopeScaling(const ConfigSource &config,
                                    int64_t rotaryDim, DecoderConfig &c,
                                    llvm::ArrayRef<const char *> objects) {
  // transformers 4.x: `rope_scaling: {rope_type | type, ...}`; 5.x:
  // `rope_parameters: {rope_type, rope_theta, ...}`.
  std::string object, typeKey;
  for (const char *candidate : objects)
    for (const char *type : {"rope_type", "type"})
      if (typeKey.empty() &&
          config.isSet(std::string(candidate) + "." + type)) {
        object = candidate;
        typeKey = object + "." + type;
      }
  // A rope_scaling object without a type is malformed, not the default.
  if (typeKey.empty()) {
    if (config.isSet("rope_scaling"))
      return llvm::createStringError("rope_scaling without a rope_type in " +
                                     config.describe());
    return llvm::Error::success();
  }
  auto type = config.string(typeKey);
  if (!type)
    return type.takeError();
  auto key = [&](const char *name) { return object + "." + name; };
  RopeScaling &s = c.ropeScaling;
  s = RopeScaling();
  auto real = [&](const char *name, double &out,
                  std::optional<double> fallback =
                      std::nullopt) -> llvm::Error {
    auto value = config.positiveReal(key(name), fallback);
    if (!value)
      return value.takeError();
    out = *value;
    return llvm::Error::success();
  };
  auto integer = [&](const char *name, int64_t &out,
                     std::optional<int64_t> fallback =
                         std::nullopt) -> llvm::Error {
    return config.read(key(name), out, fallback);
  };

  if (*type == "default")
    return llvm::Error::success();
  if (*type == "linear") {
    s.kind = RopeScalingKind::Linear;
    if (auto err = real("factor", s.factor))
      return err;
  } else if (*type == "dynamic") {
    // Up to the original context (max_position_embeddings unless stated),
    // the default frequencies; checkRopeScaling refuses a longer context.
    s.kind = RopeScalingKind::Dynamic;
    if (auto err = real("factor", s.factor))
      return err;
    if (auto err = integer("original_max_position_embeddings",
                           s.originalContext, c.contextLength))
      return err;
  } else if (*type == "llama3") {
    s.kind = RopeScalingKind::Llama3;
    if (auto err = real("factor", s.factor))
      return err;
    if (auto err = real("low_freq_factor", s.lowFrequencyFactor))
      return err;
    if (auto err = real("high_freq_factor", s.highFrequencyFactor))
      return err;
    if (auto err =
            integer("original_max_position_embeddings", s.originalContext))
      return err;
  } else if (*type == "yarn") {
    s.kind = RopeScalingKind::Yarn;
    if (auto err = real("factor", s.factor))
      return err;
    if (auto err = integer("original_max_position_embeddings",
                           s.originalContext, c.contextLength))
      return err;
    if (auto err = real("beta_fast", s.betaFast, 32.0))
      return err;
    if (auto err = real("beta_slow", s.betaSlow, 1.0))
      return err;
    if (config.isSet(key("mscale")))
      if (auto err = real("mscale", s.mscale))
        return err;
    if (config.isSet(key("mscale_all_dim")))
      if (auto err = real("mscale_all_dim", s.mscaleAllDim))
        return err;
    auto truncate = config.flag(key("truncate"), true);
    if (!truncate)
      return truncate.takeError();
    s.truncate = *truncate;
  } else if (*type == "longrope" || *type == "su") {
    s.kind = RopeScalingKind::LongRope;
    auto shortFactors = config.reals(key("short_factor"));
    if (!shortFactors)
      return shortFactors.takeError();
    auto longFactors = config.reals(key("long_factor"));
    if (!longFactors)
      return longFactors.takeError();
    s.shortFactors = std::move(*shortFactors);
    s.longFactors = std::move(*longFactors);
    // Phi-3 states the pre-trained context at the top level and stretches
    // max_position_embeddings; others state `factor` in the object.
    if (config.isSet("original_max_position_embeddings")) {
      if (auto err = config.read("original_max_position_embeddings",
                                 s.originalContext))
        return err;
      s.factor = static_cast<double>(c.contextLength) /
                 static_cast<double>(s.originalContext);
    } else {
      if (auto err = integer("original_max_position_embeddings",
                             s.originalContext, c.contextLength))
        return err;
      if (auto err = real("factor", s.factor, 1.0))
        return err;
    }
  } else {
    return llvm::createStringError(
        "unsupported RoPE scaling '" + *type + "' (" + typeKey + " in " +
        config.describe() +
        "; supported: default, linear, dynamic, llama3, yarn, longrope)");
  }
  if (config.isSet(key("attention_factor"))) {
    double factor = 0;
    if (auto err = real("attention_factor", factor))
      return err;
    s.attentionFactor = factor;
  }
  return checkScaling(c, rotaryDim, typeKey + " of " + config.describe());
}

llvm::Error tfmc::readGgufRopeScaling(const Checkpoint &file,
                                      llvm::StringRef arch, int64_t rotaryDim,
                                      DecoderConfig &c) {
  const ConfigSource &config = file.config;
  auto key = [&](llvm::StringRef name) { return (arch + "." + name).str(); };
  RopeScaling &s = c.ropeScaling;
  s = RopeScaling();
  // llama.cpp reads a missing type as linear, whose factor defaults to 1.
  auto type = config.string(key("rope.scaling.type"), std::string("linear"));
  if (!type)
    return type.takeError();
  double factor = 1.0;
  for (const char *name : {"rope.scaling.factor", "rope.scale_linear"})
    if (config.isSet(key(name))) {
      auto value = config.positiveReal(key(name));
      if (!value)
        return value.takeError();
      factor = *value;
      break;
    }
  if (*type == "yarn") {
    s.kind = RopeScalingKind::Yarn;
    s.factor = factor;
    if (auto err = config.read(key("rope.scaling.original_context_length"),
                               s.originalContext, c.contextLength))
      return err;
    // llama.cpp multiplies YaRN's own magnitude by attn_factor.
    auto attention = config.positiveReal(key("rope.scaling.attn_factor"), 1.0);
    if (!attention)
      return attention.takeError();
    s.attentionMultiplier = *attention;
  } else if (*type == "linear") {
    if (factor != 1.0) {
      s.kind = RopeScalingKind::Linear;
      s.factor = factor;
    }
  } else if (*type != "none") {
    return llvm::createStringError("unsupported RoPE scaling '" + *type +
                                   "' (" + key("rope.scaling.type") + " in " +
                                   config.describe() +
                                   "; supported: none, linear, yarn)");
  }

  // Llama 3.1 and later, converted by llama.cpp: the llama3 scaling as one
  // divisor per pair.
  if (file.tensors.contains("rope_freqs.weight")) {
    if (s.kind != RopeScalingKind::None)
      return llvm::createStringError(
          file.tensors.describe() + " holds 'rope_freqs.weight' and " +
          key("rope.scaling.type") + " '" + *type +
          "' with a factor: tfmc applies one or the other, not both");
    int64_t pairs = rotaryDim / 2;
    auto view = file.tensors.take("rope_freqs.weight", {pairs});
    if (!view)
      return view.takeError();
    s.kind = RopeScalingKind::Divisors;
    for (int64_t i = 0; i < pairs; ++i)
      s.divisors.push_back(weights::elementAsFloat(*view, i));
  }

  // Phi-3's LongRoPE, converted by llama.cpp: the short and long factors
  // as tensors, the pre-trained context and the factor on cos and sin as
  // keys.
  bool longFactors = file.tensors.contains("rope_factors_long.weight");
  bool shortFactors = file.tensors.contains("rope_factors_short.weight");
  if (longFactors || shortFactors) {
    if (s.kind != RopeScalingKind::None)
      return llvm::createStringError(
          file.tensors.describe() +
          " holds LongRoPE factors and another RoPE scaling: tfmc applies "
          "one or the other, not both");
    if (!longFactors || !shortFactors)
      return llvm::createStringError(file.tensors.describe() + " holds '" +
                                     (longFactors
                                          ? "rope_factors_long.weight"
                                          : "rope_factors_short.weight") +
                                     "' without its other half");
    int64_t pairs = rotaryDim / 2;
    for (auto [name, factors] :
         {std::pair("rope_factors_short.weight", &s.shortFactors),
          std::pair("rope_factors_long.weight", &s.longFactors)}) {
      auto view = file.tensors.take(name, {pairs});
      if (!view)
        return view.takeError();
      for (int64_t i = 0; i < pairs; ++i)
        factors->push_back(weights::elementAsFloat(*view, i));
    }
    s.kind = RopeScalingKind::LongRope;
    if (auto err = config.read(key("rope.scaling.original_context_length"),
                               s.originalContext))
      return err;
    s.factor = double(c.contextLength) / double(s.originalContext);
    if (config.isSet(key("rope.scaling.attn_factor"))) {
      auto attention = config.positiveReal(key("rope.scaling.attn_factor"));
      if (!attention)
        return attention.takeError();
      s.attentionFactor = *attention;
    }
  }
  return checkScaling(c, rotaryDim, config.describe());
}
