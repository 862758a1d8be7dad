//===- Sampler.cpp - Greedy / temperature / top-k / top-p sampling --------===//
//
// Sampling order follows HF transformers' generate(): the repetition penalty
// on the raw logits, then scale by 1/temperature, softmax, keep the k most
// likely tokens, keep the smallest nucleus whose (renormalised) mass reaches
// p, keep the tokens at least min_p times as likely as the most likely one,
// then draw. Greedy decoding applies the penalty, then takes the argmax. The
// PRNG is xorshift64* so a seed reproduces a run bit-for-bit on every
// platform.
//
//===----------------------------------------------------------------------===//

#include "runtime/Sampler.h"

#include "runtime/SplitMix64.h"

#include <algorithm>
#include <cmath>

namespace tfm::rt {

namespace {

/// First index of the largest logit, so ties resolve the same way everywhere.
/// NaN logits are never chosen unless every logit is NaN (then 0).
int argmax(const float *logits, int vocab) {
  int best = 0;
  while (best + 1 < vocab && std::isnan(logits[best]))
    ++best;
  if (std::isnan(logits[best]))
    return 0;
  for (int i = best + 1; i < vocab; ++i)
    if (logits[i] > logits[best])
      best = i;
  return best;
}

/// Replaces logits with exp((l - max) / T) in place, where max is
/// logits[best]; returns their sum. A NaN logit weighs 0. The largest
/// weighs exactly 1 unless max is infinite.
float softmaxUnnormalised(float *logits, int vocab, int best,
                          float temperature) {
  float maxLogit = logits[best];
  float invT = 1.0f / temperature;
  float sum = 0.0f;
  for (int i = 0; i < vocab; ++i) {
    float weight = std::exp((logits[i] - maxLogit) * invT);
    logits[i] = std::isnan(weight) ? 0.0f : weight;
    sum += logits[i];
  }
  return sum;
}

/// Descending by weight; ties by index so the order never depends on the
/// sort implementation.
bool moreLikely(const std::pair<float, int> &a,
                const std::pair<float, int> &b) {
  if (a.first != b.first)
    return a.first > b.first;
  return a.second < b.second;
}

} // namespace

Sampler::Sampler(const SamplerOptions &options) : options_(options) {
  state_ = splitmix64(options.seed);
  // xorshift has a fixed point at 0; splitmix64 is a bijection, so exactly
  // one seed lands there.
  if (state_ == 0)
    state_ = 0x2545f4914f6cdd1dull;
}

float Sampler::nextUniform() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  uint64_t bits = state_ * 0x2545f4914f6cdd1dull;
  // The top 24 bits fill a float mantissa exactly: uniform in [0, 1).
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

void Sampler::penalizeRepetitions(float *logits, int vocab,
                                  const int32_t *history,
                                  size_t historyLength) {
  // Each id is penalized once however often it occurs, as transformers'
  // gather/scatter over the sequence does.
  penalized_.assign(static_cast<size_t>(vocab), 0);
  float penalty = options_.repetitionPenalty;
  for (size_t i = 0; i < historyLength; ++i) {
    int32_t id = history[i];
    if (id < 0 || id >= vocab || penalized_[id])
      continue;
    penalized_[id] = 1;
    logits[id] =
        logits[id] < 0.0f ? logits[id] * penalty : logits[id] / penalty;
  }
}

int Sampler::sample(float *logits, int vocab, const int32_t *history,
                    size_t historyLength) {
  if (vocab <= 1)
    return 0;
  if (options_.repetitionPenalty != 1.0f && history)
    penalizeRepetitions(logits, vocab, history, historyLength);
  if (!(options_.temperature > 0.0f))
    return argmax(logits, vocab);

  int best = argmax(logits, vocab);
  float total = softmaxUnnormalised(logits, vocab, best, options_.temperature);
  // No distribution to draw from (every logit NaN, or an infinite one):
  // the most likely token, as greedy decoding would pick it.
  if (!(total > 0.0f) || !std::isfinite(total))
    return best;
  bool useTopK = options_.topK > 0 && options_.topK < vocab;
  bool useTopP = options_.topP < 1.0f;
  bool useMinP = options_.minP > 0.0f;
  if (!useTopK && !useTopP && !useMinP) {
    // No truncation: walk the unsorted distribution, no sort needed.
    float r = nextUniform() * total;
    float cdf = 0.0f;
    for (int i = 0; i < vocab; ++i) {
      cdf += logits[i];
      if (r < cdf)
        return i;
    }
    return argmax(logits, vocab); // r landed past the rounded-down total.
  }

  scratch_.clear();
  float cutoff = 0.0f;
  if (useTopP && !useTopK) {
    // A token below (1 - p) / (vocab - 1) of the mass cannot be inside the
    // nucleus (llama2.c's argument), so large vocabularies sort only a few.
    cutoff = (1.0f - options_.topP) / static_cast<float>(vocab - 1) * total;
    // Rounding may lift it past the most likely token (a near-uniform
    // distribution, e.g. a huge temperature): that token always stays.
    cutoff = std::min(cutoff, logits[best]);
  }
  // Min-p's threshold relative to the most likely token, which every
  // truncation keeps. Alone it is the whole filter; after top-k or top-p it
  // trims what they kept (it cannot cut first: their masses would change).
  float minWeight = useMinP ? options_.minP * logits[best] : 0.0f;
  if (!useTopK && !useTopP)
    cutoff = minWeight;
  for (int i = 0; i < vocab; ++i)
    if (logits[i] >= cutoff)
      scratch_.emplace_back(logits[i], i);

  size_t keep = scratch_.size();
  if (useTopK && static_cast<size_t>(options_.topK) < keep) {
    keep = static_cast<size_t>(options_.topK);
    std::partial_sort(scratch_.begin(), scratch_.begin() + keep, scratch_.end(),
                      moreLikely);
  } else {
    std::sort(scratch_.begin(), scratch_.end(), moreLikely);
  }
  // Top-p measures mass against what top-k kept, or against the whole
  // distribution (the cut-off only dropped tokens outside the nucleus).
  float kept = total;
  if (useTopK) {
    kept = 0.0f;
    for (size_t i = 0; i < keep; ++i)
      kept += scratch_[i].first;
  }

  if (useTopP) {
    float target = options_.topP * kept;
    float cumulative = 0.0f;
    size_t nucleus = keep;
    for (size_t i = 0; i < keep; ++i) {
      cumulative += scratch_[i].first;
      if (cumulative >= target) {
        nucleus = i + 1;
        break;
      }
    }
    keep = nucleus;
    kept = cumulative;
  }

  if (useMinP) {
    while (keep > 1 && scratch_[keep - 1].first < minWeight)
      --keep;
    kept = 0.0f;
    for (size_t i = 0; i < keep; ++i)
      kept += scratch_[i].first;
  }

  if (keep == 0)
    return best;
  float r = nextUniform() * kept;
  float cdf = 0.0f;
  for (size_t i = 0; i < keep; ++i) {
    cdf += scratch_[i].first;
    if (r < cdf)
      return scratch_[i].second;
  }
  return scratch_[keep - 1].second;
}

} // namespace tfm::rt

std::optional<std::string> tfm::rt::nonFiniteLogits(const float *logits,
                                                    int vocab) {
  // One pass that vectorises; the position only when there is one.
  bool finite = true;
  for (int i = 0; i < vocab; ++i)
    finite &= std::isfinite(logits[i]);
  if (finite)
    return std::nullopt;
  int at = 0;
  while (std::isfinite(logits[at]))
    ++at;
  return "the model's logits are not finite (" +
         std::string(std::isnan(logits[at]) ? "nan" : "inf") +
         " for token id " + std::to_string(at) +
         "): its weights or activations overflow 32-bit floats";
}
