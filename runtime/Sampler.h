//===- Sampler.h - Next-token selection from logits -----------------------===//
#ifndef TFMC_RUNTIME_SAMPLER_H
#define TFMC_RUNTIME_SAMPLER_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfm::rt {

struct SamplerOptions {
  float temperature = 1.0f; ///< 0 selects greedy (argmax).
  int topK = 0;             ///< 0 disables top-k.
  float topP = 1.0f;        ///< 1 disables nucleus sampling.
  /// Keeps the tokens at least this fraction as likely as the most likely
  /// one (after top-k and top-p); 0 disables it.
  float minP = 0.0f;
  /// Divides the positive logits of the tokens already in the sequence by
  /// this, multiplies their negative ones (CTRL's penalty, as transformers'
  /// `repetition_penalty`); 1 disables it.
  float repetitionPenalty = 1.0f;
  uint64_t seed = 0;
};

/// Greedy / temperature / top-k / top-p / min-p sampling with a repetition
/// penalty and a deterministic PRNG (same seed, same logits -> same token).
class Sampler {
public:
  explicit Sampler(const SamplerOptions &options);
  /// Picks a token from `logits[0..vocab)` after the `historyLength` ids of
  /// the sequence so far at `history` (read by the repetition penalty only).
  /// May overwrite `logits`.
  int sample(float *logits, int vocab, const int32_t *history = nullptr,
             size_t historyLength = 0);

private:
  float nextUniform();
  void penalizeRepetitions(float *logits, int vocab, const int32_t *history,
                           size_t historyLength);
  SamplerOptions options_;
  uint64_t state_;
  std::vector<std::pair<float, int>> scratch_;
  std::vector<uint8_t> penalized_; ///< per id, while penalizing
};

/// Why `logits` cannot be sampled from, when one of the first `vocab` is a
/// NaN or an infinity: a model whose weights overflow f32 computes them,
/// and sampling would print a token that means nothing.
std::optional<std::string> nonFiniteLogits(const float *logits, int vocab);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_SAMPLER_H
