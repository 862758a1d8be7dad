//===- SplitMix64.h - A 64-bit mixing function ------------------*- C++ -*-===//
//
// SplitMix64's finaliser: spreads nearby inputs (seeds 0, 1, 2, ... or
// consecutive counters) over all 64 bits, so that they give unrelated
// values. The sampler seeds its generator with it; the random weights
// (RandomWeights.h) are it applied to a counter.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_SPLITMIX64_H
#define TFMC_RUNTIME_SPLITMIX64_H

#include <cstdint>

namespace tfm::rt {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

} // namespace tfm::rt

#endif // TFMC_RUNTIME_SPLITMIX64_H
