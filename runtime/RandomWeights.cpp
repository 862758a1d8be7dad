//===- RandomWeights.cpp - A weights blob filled from a seed --------------===//
#include "runtime/RandomWeights.h"

#include "runtime/SplitMix64.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

// The blob's bytes are a word's bytes in memory order.
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fillRandomWeights assumes a little-endian host"
#endif

namespace tfm::rt {

namespace {

/// The eight bytes at word `index`: each byte's low nibble and top bit
/// random, bits 4-5 set and bit 6 clear (0x30-0x3F or 0xB0-0xBF). A
/// counter mixed, so any stretch of the blob is computed without the ones
/// before it.
uint64_t word(uint64_t seed, uint64_t index) {
  constexpr uint64_t kKeep = 0x8f8f8f8f8f8f8f8full;
  constexpr uint64_t kSet = 0x3030303030303030ull;
  return (splitmix64(seed * 0xd1342543de82ef95ull + index) & kKeep) | kSet;
}

void fillWords(uint8_t *data, uint64_t bytes, uint64_t seed, uint64_t first,
               uint64_t last) {
  for (uint64_t index = first; index < last; ++index) {
    uint64_t value = word(seed, index);
    uint64_t offset = index * 8;
    std::memcpy(data + offset, &value, std::min<uint64_t>(8, bytes - offset));
  }
}

} // namespace

void fillRandomWeights(uint8_t *data, uint64_t bytes, uint64_t seed,
                       unsigned threads) {
  uint64_t words = (bytes + 7) / 8;
  // A thread per 16 MiB at least: below that, starting one costs more
  // than it saves.
  uint64_t useful = std::max<uint64_t>(1, words / (uint64_t(2) << 20));
  unsigned count = unsigned(std::min<uint64_t>(std::max(1u, threads), useful));
  if (count == 1) {
    fillWords(data, bytes, seed, 0, words);
    return;
  }
  std::vector<std::thread> workers;
  uint64_t per = (words + count - 1) / count;
  for (unsigned t = 0; t < count; ++t) {
    uint64_t first = std::min(words, t * per);
    uint64_t last = std::min(words, first + per);
    workers.emplace_back(fillWords, data, bytes, seed, first, last);
  }
  for (std::thread &worker : workers)
    worker.join();
}

} // namespace tfm::rt
