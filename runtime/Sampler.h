//===- Sampler.h - Next-token selection from logits -----------------------===//
#ifndef TFMC_RUNTIME_SAMPLER_H
#define TFMC_RUNTIME_SAMPLER_H

#include <cstdint>
#include <vector>

namespace tfm::rt {

struct SamplerOptions {
  float temperature = 1.0f; ///< 0 selects greedy (argmax).
  int topK = 0;             ///< 0 disables top-k.
  float topP = 1.0f;        ///< 1 disables nucleus sampling.
  uint64_t seed = 0;
};

/// Greedy / temperature / top-k / top-p sampling with a deterministic PRNG
/// (same seed, same logits -> same token).
class Sampler {
public:
  explicit Sampler(const SamplerOptions &options);
  /// Picks a token from `logits[0..vocab)`. May overwrite `logits`.
  int sample(float *logits, int vocab);

private:
  float nextUniform();
  SamplerOptions options_;
  uint64_t state_;
  std::vector<std::pair<float, int>> scratch_;
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_SAMPLER_H
