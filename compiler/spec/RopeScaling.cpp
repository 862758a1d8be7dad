//===- RopeScaling.cpp - The frequencies of a scaled rotary embedding -----===//
#include "compiler/spec/RopeScaling.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace tfmc;

const char *tfmc::ropeScalingName(RopeScalingKind kind) {
  switch (kind) {
  case RopeScalingKind::None:
    return "default";
  case RopeScalingKind::Linear:
    return "linear";
  case RopeScalingKind::Dynamic:
    return "dynamic";
  case RopeScalingKind::Llama3:
    return "llama3";
  case RopeScalingKind::Yarn:
    return "yarn";
  case RopeScalingKind::LongRope:
    return "longrope";
  case RopeScalingKind::Divisors:
    return "rope_freqs";
  }
  return "unknown";
}

namespace {

bool positiveFinite(double value) { return std::isfinite(value) && value > 0; }

/// Why `factors` cannot divide `pairs` frequencies, if they cannot.
std::optional<std::string> checkFactors(const std::vector<double> &factors,
                                        int64_t pairs, const char *name) {
  if (static_cast<int64_t>(factors.size()) != pairs)
    return std::string(name) + " has " + std::to_string(factors.size()) +
           " entries but the rotary embedding has " + std::to_string(pairs) +
           " feature pairs";
  for (double factor : factors)
    if (!positiveFinite(factor))
      return std::string(name) + " holds " + std::to_string(factor) +
             ", not a finite number > 0";
  return std::nullopt;
}

/// YaRN's attention factor from its scaling factor (the paper's
/// 0.1 ln(s) + 1), weighted by DeepSeek's mscale.
double yarnMagnitude(double factor, double mscale = 1.0) {
  return factor <= 1.0 ? 1.0 : 0.1 * mscale * std::log(factor) + 1.0;
}

/// The feature pair at which a frequency turns `rotations` times over
/// `context` positions (YaRN's find_correction_dim), fractional.
double correctionPair(double rotations, int64_t rotaryDim, double theta,
                      int64_t context) {
  return rotaryDim * std::log(context / (rotations * 2 * M_PI)) /
         (2 * std::log(theta));
}

} // namespace

std::optional<std::string> tfmc::checkRopeScaling(const RopeScaling &s,
                                                  int64_t rotaryDim,
                                                  double theta,
                                                  int64_t context) {
  int64_t pairs = rotaryDim / 2;
  switch (s.kind) {
  case RopeScalingKind::None:
    return std::nullopt;
  case RopeScalingKind::Divisors:
    return checkFactors(s.divisors, pairs, "rope_freqs");
  case RopeScalingKind::LongRope: {
    if (auto why = checkFactors(s.shortFactors, pairs, "short_factor"))
      return why;
    if (auto why = checkFactors(s.longFactors, pairs, "long_factor"))
      return why;
    if (s.originalContext <= 0)
      return std::string("original_max_position_embeddings must be > 0");
    break;
  }
  case RopeScalingKind::Dynamic:
    if (s.originalContext <= 0)
      return std::string("original_max_position_embeddings must be > 0");
    if (context > s.originalContext)
      return "dynamic NTK scaling changes every frequency once a sequence "
             "passes the original " +
             std::to_string(s.originalContext) +
             " positions, which a compiled network does not; compile with "
             "--context " +
             std::to_string(s.originalContext) + " or less";
    [[fallthrough]];
  case RopeScalingKind::Linear:
  case RopeScalingKind::Llama3:
  case RopeScalingKind::Yarn:
    if (!std::isfinite(s.factor) || s.factor < 1.0)
      return "factor " + std::to_string(s.factor) +
             " must be a finite number >= 1";
    break;
  }
  if (s.kind == RopeScalingKind::Llama3) {
    if (s.originalContext <= 0)
      return std::string("original_max_position_embeddings must be > 0");
    if (!positiveFinite(s.lowFrequencyFactor) ||
        !positiveFinite(s.highFrequencyFactor) ||
        s.highFrequencyFactor <= s.lowFrequencyFactor)
      return "low_freq_factor " + std::to_string(s.lowFrequencyFactor) +
             " and high_freq_factor " + std::to_string(s.highFrequencyFactor) +
             " must be finite, > 0 and low < high";
  }
  if (s.kind == RopeScalingKind::Yarn) {
    if (s.originalContext <= 0)
      return std::string("original_max_position_embeddings must be > 0");
    if (!positiveFinite(s.betaFast) || !positiveFinite(s.betaSlow) ||
        s.betaFast < s.betaSlow)
      return "beta_fast " + std::to_string(s.betaFast) + " and beta_slow " +
             std::to_string(s.betaSlow) +
             " must be finite, > 0 and beta_fast >= beta_slow";
    if (!std::isfinite(s.mscale) || !std::isfinite(s.mscaleAllDim))
      return std::string("mscale and mscale_all_dim must be finite");
    if (!(theta > 1.0))
      return std::string("YaRN needs a RoPE base (rope_theta) > 1");
  }
  if (!positiveFinite(s.attentionMultiplier))
    return "attn_factor " + std::to_string(s.attentionMultiplier) +
           " must be a finite number > 0";
  if (s.attentionFactor && !positiveFinite(*s.attentionFactor))
    return "attention_factor " + std::to_string(*s.attentionFactor) +
           " must be a finite number > 0";
  return std::nullopt;
}

bool tfmc::scalesFrequencies(const RopeScaling &scaling) {
  return scaling.kind != RopeScalingKind::None &&
         scaling.kind != RopeScalingKind::Dynamic;
}

RopeFrequencies tfmc::ropeFrequencies(double theta, int64_t rotaryDim,
                                      const RopeScaling &s, int64_t context) {
  assert(!checkRopeScaling(s, rotaryDim, theta, context) && "checked first");
  const std::vector<double> &longRopeFactors =
      context > s.originalContext ? s.longFactors : s.shortFactors;
  int64_t pairs = rotaryDim / 2;
  RopeFrequencies out;
  out.inverse.resize(static_cast<size_t>(pairs));
  // The default frequencies, computed as the lowering always has (f32),
  // so that an unscaled network is unchanged.
  float thetaF = static_cast<float>(theta);
  std::vector<double> base(static_cast<size_t>(pairs));
  for (int64_t i = 0; i < pairs; ++i)
    base[i] = 1.0f / std::pow(thetaF, static_cast<float>(2 * i) /
                                          static_cast<float>(rotaryDim));

  double attention = 1.0;
  for (int64_t i = 0; i < pairs; ++i) {
    double inverse = base[i];
    switch (s.kind) {
    case RopeScalingKind::None:
    case RopeScalingKind::Dynamic:
      break;
    case RopeScalingKind::Linear:
      inverse /= s.factor;
      break;
    case RopeScalingKind::Divisors:
      inverse /= s.divisors[i];
      break;
    case RopeScalingKind::LongRope:
      inverse /= longRopeFactors[i];
      break;
    case RopeScalingKind::Llama3: {
      // Wavelengths longer than the original context / low_freq_factor are
      // stretched by `factor`, shorter than / high_freq_factor kept, and
      // those between blended by where they fall.
      double wavelength = 2 * M_PI / inverse;
      double original = static_cast<double>(s.originalContext);
      if (wavelength > original / s.lowFrequencyFactor) {
        inverse /= s.factor;
      } else if (wavelength >= original / s.highFrequencyFactor) {
        double smooth = (original / wavelength - s.lowFrequencyFactor) /
                        (s.highFrequencyFactor - s.lowFrequencyFactor);
        inverse = (1 - smooth) * inverse / s.factor + smooth * inverse;
      }
      break;
    }
    case RopeScalingKind::Yarn: {
      // Pairs that turn more than beta_fast times over the original
      // context keep their frequency (extrapolate), those turning fewer
      // than beta_slow times are divided by `factor` (interpolate), with a
      // linear ramp between.
      double low =
          correctionPair(s.betaFast, rotaryDim, theta, s.originalContext);
      double high =
          correctionPair(s.betaSlow, rotaryDim, theta, s.originalContext);
      if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, static_cast<double>(rotaryDim - 1));
      if (low == high)
        high += 0.001;
      double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
      double extrapolate = 1 - ramp;
      inverse = inverse / s.factor * (1 - extrapolate) + inverse * extrapolate;
      break;
    }
    }
    out.inverse[i] = static_cast<float>(inverse);
  }

  if (s.kind == RopeScalingKind::Yarn) {
    attention = s.mscale != 0 && s.mscaleAllDim != 0
                    ? yarnMagnitude(s.factor, s.mscale) /
                          yarnMagnitude(s.factor, s.mscaleAllDim)
                    : yarnMagnitude(s.factor);
  } else if (s.kind == RopeScalingKind::LongRope) {
    // Phi-3: sqrt(1 + ln(factor) / ln(original context)).
    attention =
        s.factor <= 1.0
            ? 1.0
            : std::sqrt(1 + std::log(s.factor) / std::log(static_cast<double>(
                                                     s.originalContext)));
  }
  if (s.attentionFactor)
    attention = *s.attentionFactor;
  attention *= s.attentionMultiplier;
  out.attentionFactor = static_cast<float>(attention);
  return out;
}
