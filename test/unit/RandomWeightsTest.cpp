//===- RandomWeightsTest.cpp - The fill of --random-weights' blob ---------===//

#include "runtime/RandomWeights.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using tfm::rt::fillRandomWeights;

namespace {

std::vector<uint8_t> filled(uint64_t bytes, uint64_t seed, unsigned threads) {
  std::vector<uint8_t> blob(bytes);
  fillRandomWeights(blob.data(), bytes, seed, threads);
  return blob;
}

/// An IEEE half's value (normal numbers only: the fill has no others).
double halfValue(uint16_t bits, bool &normal) {
  int exponent = (bits >> 10) & 0x1f;
  normal = exponent != 0 && exponent != 0x1f;
  double magnitude = std::ldexp(1.0 + (bits & 0x3ff) / 1024.0, exponent - 15);
  return bits & 0x8000 ? -magnitude : magnitude;
}

TEST(RandomWeightsTest, EveryByteIsInTheUsableRange) {
  for (uint8_t byte : filled(4099, 1, 1))
    EXPECT_EQ(byte & 0x70, 0x30) << int(byte);
}

TEST(RandomWeightsTest, EveryTypeReadsNormalFiniteNumbers) {
  std::vector<uint8_t> blob = filled(1 << 16, 3, 1);
  bool negative = false, positive = false;
  for (size_t at = 0; at + 4 <= blob.size(); at += 4) {
    float f32;
    std::memcpy(&f32, &blob[at], 4);
    EXPECT_TRUE(std::isnormal(f32)) << at;
    EXPECT_LT(std::fabs(f32), 2.0f) << at;
    EXPECT_GE(std::fabs(f32), std::ldexp(1.0f, -31)) << at;
    negative |= f32 < 0;
    positive |= f32 > 0;
    // bf16 is an f32's upper half; its lower half starts at `at` too.
    uint32_t bf16 = uint32_t(blob[at + 1]) << 24 | uint32_t(blob[at]) << 16;
    float widened;
    std::memcpy(&widened, &bf16, 4);
    EXPECT_TRUE(std::isnormal(widened)) << at;
    bool normal = false;
    double half = halfValue(uint16_t(blob[at] | blob[at + 1] << 8), normal);
    EXPECT_TRUE(normal) << at;
    EXPECT_GE(std::fabs(half), 0.125) << at;
    EXPECT_LT(std::fabs(half), 2.0) << at;
    // int8 quants: 48..63 or -80..-65, never -128.
    int8_t quant = static_cast<int8_t>(blob[at]);
    EXPECT_GE(std::abs(quant), 48) << at;
  }
  EXPECT_TRUE(negative && positive);
}

TEST(RandomWeightsTest, TheSameBytesOnAnyThreadCount) {
  // 40 MiB and an odd tail: several threads' worth.
  uint64_t bytes = (uint64_t(40) << 20) + 5;
  std::vector<uint8_t> one = filled(bytes, 9, 1);
  EXPECT_EQ(one, filled(bytes, 9, 4));
  EXPECT_EQ(one, filled(bytes, 9, 3));
  // A prefix is the longer blob's prefix: byte i depends on i alone.
  std::vector<uint8_t> shorter = filled(1003, 9, 1);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), one.begin()));
}

TEST(RandomWeightsTest, SeedsGiveOtherBytes) {
  std::vector<uint8_t> a = filled(4096, 1, 1), b = filled(4096, 2, 1);
  size_t same = 0;
  for (size_t i = 0; i < a.size(); ++i)
    same += a[i] == b[i];
  // Five random bits a byte: about 1 in 32 agree by chance.
  EXPECT_LT(same, a.size() / 8);
}

} // namespace
