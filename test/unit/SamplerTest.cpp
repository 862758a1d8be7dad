//===- SamplerTest.cpp - Unit tests for the token sampler -----------------===//

#include "runtime/Sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

using tfm::rt::Sampler;
using tfm::rt::SamplerOptions;

namespace {

const std::vector<float> kLogits = {0.5f, 2.0f, -1.0f, 1.5f, 0.0f, 1.9f};

/// Samples once from a fresh copy of `logits` (sample() may overwrite them).
int sampleOnce(Sampler &sampler, const std::vector<float> &logits) {
  std::vector<float> copy = logits;
  return sampler.sample(copy.data(), static_cast<int>(copy.size()));
}

SamplerOptions options(float temperature, int topK, float topP, uint64_t seed) {
  SamplerOptions o;
  o.temperature = temperature;
  o.topK = topK;
  o.topP = topP;
  o.seed = seed;
  return o;
}

std::vector<double> softmax(const std::vector<float> &logits, double t) {
  double maxLogit = logits[0];
  for (float l : logits)
    maxLogit = std::max(maxLogit, static_cast<double>(l));
  std::vector<double> p;
  double sum = 0;
  for (float l : logits) {
    p.push_back(std::exp((l - maxLogit) / t));
    sum += p.back();
  }
  for (double &x : p)
    x /= sum;
  return p;
}

} // namespace

TEST(SamplerTest, GreedyPicksArgmax) {
  Sampler sampler(options(0.0f, 0, 1.0f, 1));
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(sampleOnce(sampler, kLogits), 1);
}

TEST(SamplerTest, GreedyTiesPickFirst) {
  Sampler sampler(options(0.0f, 0, 1.0f, 1));
  EXPECT_EQ(sampleOnce(sampler, {1.0f, 3.0f, 3.0f, 2.0f}), 1);
  EXPECT_EQ(sampleOnce(sampler, {-5.0f, -5.0f}), 0);
}

TEST(SamplerTest, TopKOneEqualsGreedy) {
  for (uint64_t seed : {0ull, 1ull, 42ull}) {
    Sampler sampler(options(1.5f, 1, 1.0f, seed));
    for (int i = 0; i < 50; ++i)
      EXPECT_EQ(sampleOnce(sampler, kLogits), 1);
  }
}

TEST(SamplerTest, TinyTopPEqualsGreedy) {
  Sampler sampler(options(1.0f, 0, 1e-6f, 3));
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(sampleOnce(sampler, kLogits), 1);
}

TEST(SamplerTest, SameSeedSameSequence) {
  for (uint64_t seed : {0ull, 7ull, ~0ull}) {
    Sampler a(options(1.0f, 0, 0.95f, seed));
    Sampler b(options(1.0f, 0, 0.95f, seed));
    for (int i = 0; i < 200; ++i)
      EXPECT_EQ(sampleOnce(a, kLogits), sampleOnce(b, kLogits));
  }
}

TEST(SamplerTest, DifferentSeedsDiffer) {
  Sampler a(options(1.0f, 0, 1.0f, 0));
  Sampler b(options(1.0f, 0, 1.0f, 1));
  int differences = 0;
  for (int i = 0; i < 200; ++i)
    differences += sampleOnce(a, kLogits) != sampleOnce(b, kLogits);
  EXPECT_GT(differences, 20);
}

TEST(SamplerTest, EmpiricalDistributionMatchesSoftmax) {
  // Fixed seed: the result is deterministic, the bound only guards against a
  // biased implementation (standard error here is ~0.0035).
  const int draws = 20000;
  for (float t : {1.0f, 0.7f}) {
    Sampler sampler(options(t, 0, 1.0f, 12345));
    std::vector<int> counts(kLogits.size());
    for (int i = 0; i < draws; ++i)
      ++counts[sampleOnce(sampler, kLogits)];
    std::vector<double> expected = softmax(kLogits, t);
    for (size_t i = 0; i < counts.size(); ++i)
      EXPECT_NEAR(counts[i] / double(draws), expected[i], 0.02)
          << "token " << i << " at T=" << t;
  }
}

TEST(SamplerTest, TopKTwoStaysInTopTwo) {
  Sampler sampler(options(2.0f, 2, 1.0f, 99));
  std::set<int> seen;
  for (int i = 0; i < 2000; ++i)
    seen.insert(sampleOnce(sampler, kLogits));
  // Tokens 1 (2.0) and 5 (1.9) are the two largest; both must appear.
  EXPECT_EQ(seen, (std::set<int>{1, 5}));
}

TEST(SamplerTest, TopKRenormalisesKeptMass) {
  const int draws = 20000;
  Sampler sampler(options(1.0f, 2, 1.0f, 5));
  int ones = 0;
  for (int i = 0; i < draws; ++i)
    ones += sampleOnce(sampler, kLogits) == 1;
  double expected = 1.0 / (1.0 + std::exp(1.9 - 2.0));
  EXPECT_NEAR(ones / double(draws), expected, 0.02);
}

TEST(SamplerTest, TopPKeepsSmallestNucleus) {
  // Probabilities 0.5, 0.3, 0.15, 0.05: p = 0.7 needs the first two tokens.
  std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f),
                               std::log(0.05f)};
  Sampler sampler(options(1.0f, 0, 0.7f, 11));
  std::set<int> seen;
  for (int i = 0; i < 2000; ++i)
    seen.insert(sampleOnce(sampler, logits));
  EXPECT_EQ(seen, (std::set<int>{0, 1}));
}

TEST(SamplerTest, TopPOneIsOff) {
  Sampler sampler(options(1.0f, 0, 1.0f, 11));
  std::set<int> seen;
  for (int i = 0; i < 5000; ++i)
    seen.insert(sampleOnce(sampler, kLogits));
  EXPECT_EQ(seen.size(), kLogits.size());
}

TEST(SamplerTest, LargeVocabularyTopP) {
  // Exercises the cut-off path: one dominant token among many tiny ones.
  std::vector<float> logits(50000, 0.0f);
  logits[31337] = 20.0f;
  Sampler sampler(options(1.0f, 0, 0.9f, 8));
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(sampleOnce(sampler, logits), 31337);
}

TEST(SamplerTest, SingleTokenVocabulary) {
  Sampler sampler(options(1.0f, 0, 0.5f, 0));
  EXPECT_EQ(sampleOnce(sampler, {3.0f}), 0);
}

// Regressions: top-p used to keep nothing, and the draw read index -1.
TEST(SamplerTest, NaNLogitsAreNeverDrawn) {
  const float nan = std::nanf("");
  for (float topP : {0.9f, 1.0f}) {
    Sampler sampler(options(1.0f, 0, topP, 5));
    for (int i = 0; i < 50; ++i) {
      int id = sampleOnce(sampler, {nan, 1.0f, 2.0f, nan});
      EXPECT_TRUE(id == 1 || id == 2) << id;
    }
  }
}

TEST(SamplerTest, AllNaNLogitsGiveAValidId) {
  const float nan = std::nanf("");
  for (int topK : {0, 2}) {
    Sampler sampler(options(1.0f, topK, 0.9f, 5));
    EXPECT_EQ(sampleOnce(sampler, {nan, nan, nan}), 0);
  }
  Sampler greedy(options(0.0f, 0, 1.0f, 5));
  EXPECT_EQ(sampleOnce(greedy, {nan, 0.5f, nan, 3.0f}), 3);
}

TEST(SamplerTest, InfiniteLogitIsChosen) {
  Sampler sampler(options(1.0f, 0, 0.9f, 5));
  EXPECT_EQ(sampleOnce(sampler, {0.0f, INFINITY, 1.0f}), 1);
}

TEST(SamplerTest, HugeTemperatureTinyTopPKeepsTheTopToken) {
  std::vector<float> logits(512);
  for (size_t i = 0; i < logits.size(); ++i)
    logits[i] = static_cast<float>(i % 7);
  Sampler sampler(options(1e30f, 0, 0.001f, 5));
  for (int i = 0; i < 20; ++i) {
    int id = sampleOnce(sampler, logits);
    EXPECT_GE(id, 0);
    EXPECT_LT(id, 512);
  }
}

TEST(SamplerTest, MinPKeepsTokensAtLeastThatLikely) {
  // Probabilities 0.5, 0.3, 0.15, 0.05: min_p 0.25 keeps those >= 0.125.
  std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f),
                               std::log(0.05f)};
  SamplerOptions o = options(1.0f, 0, 1.0f, 3);
  o.minP = 0.25f;
  Sampler sampler(o);
  const int draws = 20000;
  std::vector<int> counts(logits.size());
  for (int i = 0; i < draws; ++i)
    ++counts[sampleOnce(sampler, logits)];
  EXPECT_EQ(counts[3], 0);
  // Renormalised over the kept mass 0.95.
  EXPECT_NEAR(counts[0] / double(draws), 0.5 / 0.95, 0.02);
  EXPECT_NEAR(counts[2] / double(draws), 0.15 / 0.95, 0.02);
}

TEST(SamplerTest, MinPTrimsWhatTopPKept) {
  // top_p 0.9 keeps 0.5, 0.3, 0.15 (mass 0.95 >= 0.9); min_p 0.5 then
  // keeps those >= 0.25: tokens 0 and 1, drawn from their mass 0.8.
  std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f),
                               std::log(0.05f)};
  SamplerOptions o = options(1.0f, 0, 0.9f, 8);
  o.minP = 0.5f;
  Sampler sampler(o);
  const int draws = 20000;
  std::vector<int> counts(logits.size());
  for (int i = 0; i < draws; ++i)
    ++counts[sampleOnce(sampler, logits)];
  EXPECT_EQ(counts[2] + counts[3], 0);
  EXPECT_NEAR(counts[0] / double(draws), 0.5 / 0.8, 0.02);
}

TEST(SamplerTest, MinPKeepsTheMostLikelyToken) {
  SamplerOptions o = options(1.0f, 0, 1.0f, 1);
  o.minP = 1.0f;
  Sampler sampler(o);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(sampleOnce(sampler, kLogits), 1);
}

TEST(SamplerTest, RepetitionPenaltyDividesPositiveMultipliesNegative) {
  // Greedy: token 1 (2.0) wins; seen with penalty 2 it weighs 1.0, so token
  // 5 (1.9) wins; token 2 (-1.0) seen becomes -2.0, which changes nothing.
  SamplerOptions o = options(0.0f, 0, 1.0f, 0);
  o.repetitionPenalty = 2.0f;
  Sampler sampler(o);
  std::vector<float> logits = kLogits;
  std::vector<int32_t> history = {1, 2, 1, 1};
  EXPECT_EQ(sampler.sample(logits.data(), int(logits.size()), history.data(),
                           history.size()),
            5);
  EXPECT_FLOAT_EQ(logits[1], 1.0f); // once, however often it occurred
  EXPECT_FLOAT_EQ(logits[2], -2.0f);
  EXPECT_FLOAT_EQ(logits[5], 1.9f);
}

TEST(SamplerTest, RepetitionPenaltyIgnoresIdsOutsideTheVocabulary) {
  SamplerOptions o = options(0.0f, 0, 1.0f, 0);
  o.repetitionPenalty = 3.0f;
  Sampler sampler(o);
  std::vector<float> logits = kLogits;
  std::vector<int32_t> history = {-1, 6, 1000};
  EXPECT_EQ(sampler.sample(logits.data(), int(logits.size()), history.data(),
                           history.size()),
            1);
  EXPECT_EQ(logits, kLogits);
}

// Logits of weights that overflow f32 are named, not sampled from.
TEST(SamplerTest, NonFiniteLogitsAreReported) {
  std::vector<float> logits = kLogits;
  EXPECT_FALSE(tfm::rt::nonFiniteLogits(logits.data(), int(logits.size())));
  logits[4] = NAN;
  logits[5] = INFINITY;
  std::optional<std::string> why =
      tfm::rt::nonFiniteLogits(logits.data(), int(logits.size()));
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "the model's logits are not finite (nan for token id 4): "
                  "its weights or activations overflow 32-bit floats");
  // Only the first `vocab` count.
  EXPECT_FALSE(tfm::rt::nonFiniteLogits(logits.data(), 4));
}
