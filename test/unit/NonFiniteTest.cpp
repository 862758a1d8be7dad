//===- NonFiniteTest.cpp - Finding NaN and infinity in weights ------------===//
//
// The package writer rejects weights holding NaN or infinity; the scan must
// find them in every element type, anywhere (also past the first block and
// at unaligned addresses), and never flag finite extremes.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/TensorView.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

using namespace tfmc::weights;

namespace {

/// `count` 16-bit elements of `type`, all `fill` except `bits` at `at`,
/// stored one byte past an aligned address.
TensorView halves(ElementType type, int64_t count, uint16_t fill, int64_t at,
                  uint16_t bits) {
  auto storage = std::make_shared<std::vector<char>>(2 * count + 1);
  char *data = storage->data() + 1;
  for (int64_t i = 0; i < count; ++i) {
    uint16_t value = i == at ? bits : fill;
    std::memcpy(data + 2 * i, &value, 2);
  }
  return TensorView(type, {count}, data, storage);
}

} // namespace

TEST(NonFiniteTest, F32) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float bad : {std::nanf(""), inf, -inf}) {
    std::vector<float> values(5000, 1.0f);
    values[4321] = bad;
    TensorView view = TensorView::fromF32({5000}, values);
    ASSERT_EQ(findNonFinite(view), std::optional<uint64_t>(4321));
    EXPECT_EQ(std::isnan(elementAsFloat(view, 4321)), std::isnan(bad));
  }
  std::vector<float> extremes = {
      std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
      std::numeric_limits<float>::denorm_min(), 0.0f, -0.0f};
  EXPECT_EQ(findNonFinite(TensorView::fromF32({5}, extremes)), std::nullopt);
}

TEST(NonFiniteTest, F16AndBF16) {
  // f16: 0x7c00 inf, 0xfe00 NaN, 0x7bff the largest finite value.
  EXPECT_EQ(findNonFinite(halves(ElementType::F16, 3000, 0x3c00, 2999, 0x7c00)),
            std::optional<uint64_t>(2999));
  EXPECT_EQ(findNonFinite(halves(ElementType::F16, 10, 0x3c00, 0, 0xfe00)),
            std::optional<uint64_t>(0));
  EXPECT_EQ(findNonFinite(halves(ElementType::F16, 10, 0x7bff, 3, 0xfbff)),
            std::nullopt);
  EXPECT_TRUE(
      std::isinf(elementAsFloat(halves(ElementType::F16, 4, 0, 2, 0x7c00), 2)));
  // bf16: 0x7f80 inf, 0x7fc0 NaN, 0x7f7f the largest finite value.
  EXPECT_EQ(
      findNonFinite(halves(ElementType::BF16, 2048, 0x3f80, 1024, 0x7fc0)),
      std::optional<uint64_t>(1024));
  EXPECT_EQ(findNonFinite(halves(ElementType::BF16, 10, 0x3f80, 9, 0xff80)),
            std::optional<uint64_t>(9));
  EXPECT_EQ(findNonFinite(halves(ElementType::BF16, 10, 0x7f7f, 1, 0xff7f)),
            std::nullopt);
}

TEST(NonFiniteTest, MagnitudeBeyond2To64) {
  // 2^64 and beyond, either sign, past the first block; the largest float
  // below 2^64 is not flagged.
  const float limit = std::ldexp(1.0f, 64);
  for (float huge : {limit, -limit, 3e38f}) {
    std::vector<float> values(3000, 0.5f);
    values[2500] = huge;
    EXPECT_EQ(findBeyond2To64(TensorView::fromF32({3000}, values)),
              std::optional<uint64_t>(2500));
  }
  std::vector<float> below = {std::nextafter(limit, 0.0f),
                              -std::nextafter(limit, 0.0f), 1e18f, 0.0f};
  EXPECT_EQ(findBeyond2To64(TensorView::fromF32({4}, below)), std::nullopt);
  // bf16 keeps f32's exponent: 0x5f80 is 2^64, 0xdf80 -2^64, 0x5f7f below.
  EXPECT_EQ(
      findBeyond2To64(halves(ElementType::BF16, 2000, 0x3f80, 1999, 0xdf80)),
      std::optional<uint64_t>(1999));
  EXPECT_EQ(findBeyond2To64(halves(ElementType::BF16, 10, 0x5f7f, 0, 0x5f7f)),
            std::nullopt);
  // f16 cannot hold one: its largest finite value is 65504.
  EXPECT_EQ(findBeyond2To64(halves(ElementType::F16, 10, 0x7bff, 0, 0x7bff)),
            std::nullopt);
}
