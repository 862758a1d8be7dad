//===- BlockPanelsTest.cpp - Q8_0 / Q4_0 quantization and block panels ----===//
//
// compiler/weights/BlockPanels: ggml's reference rounding on hand-worked
// blocks (ties, the Q4_0 clamp, zero blocks), quantize-then-dequantize
// staying within a step, and where each byte lands in the panels.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/BlockPanels.h"
#include "compiler/weights/Quantized.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

using namespace tfmc::weights;

namespace {

TensorView matrix(int64_t rows, int64_t columns,
                  const std::function<float(int64_t, int64_t)> &value) {
  std::vector<float> values;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c)
      values.push_back(value(r, c));
  return TensorView::fromF32({rows, columns}, std::move(values));
}

std::vector<float> dequantized(const TensorView &blocks) {
  std::vector<float> out(blocks.numElements());
  dequantizeBlocks(blocks.type(), blocks.data(), out.size() / 32, out.data());
  return out;
}

TEST(BlockPanels, Q8_0RoundsHalfAwayFromZero) {
  // max |x| = 127 gives d = 1: x = q exactly, and the halves round away.
  auto m = matrix(1, 32, [](int64_t, int64_t c) {
    return c == 0   ? 127.0f
           : c == 1 ? 2.5f
           : c == 2 ? -2.5f
           : c == 3 ? -127.0f
                    : 0.25f;
  });
  auto q = quantizeRows(m, ElementType::Q8_0);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  EXPECT_EQ(q->bytes(), 34u);
  EXPECT_EQ(blockScale(ElementType::Q8_0, q->data(), 0), 1.0f);
  const auto *quants = reinterpret_cast<const int8_t *>(q->data() + 2);
  EXPECT_EQ(quants[0], 127);
  EXPECT_EQ(quants[1], 3);
  EXPECT_EQ(quants[2], -3);
  EXPECT_EQ(quants[3], -127);
  EXPECT_EQ(quants[4], 0);
}

TEST(BlockPanels, Q4_0TakesTheSignedMaximumAndClamps) {
  // m = -16 (the first of the largest magnitudes): d = 2, id = 0.5, and
  // q = min(15, trunc(x / 2 + 8.5)): -16 -> 0, 16 -> 15 (clamped from 16),
  // 1 -> 9, -1 -> 8.
  auto m = matrix(1, 32, [](int64_t, int64_t c) {
    return c == 0 ? -16.0f : c == 1 ? 16.0f : c == 16 ? 1.0f : -1.0f;
  });
  auto q = quantizeRows(m, ElementType::Q4_0);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  EXPECT_EQ(q->bytes(), 18u);
  EXPECT_EQ(blockScale(ElementType::Q4_0, q->data(), 0), 2.0f);
  const auto *bytes = reinterpret_cast<const uint8_t *>(q->data() + 2);
  EXPECT_EQ(bytes[0], 0x0 | (9 << 4)); // columns 0 and 16
  EXPECT_EQ(bytes[1], 0xf | (8 << 4)); // columns 1 and 17
}

TEST(BlockPanels, ZeroBlocksHaveZeroScale) {
  auto m = matrix(2, 64, [](int64_t, int64_t) { return 0.0f; });
  for (ElementType type : {ElementType::Q8_0, ElementType::Q4_0}) {
    auto q = quantizeRows(m, type);
    ASSERT_TRUE(bool(q));
    for (float v : dequantized(*q))
      EXPECT_EQ(v, 0.0f);
  }
}

// Half a step, plus what rounding the scale to f16 moves the largest
// quant by; Q4_0's positive extreme is clamped to 15 steps (up to a whole
// step off).
TEST(BlockPanels, DequantizedWithinAStep) {
  auto m = matrix(3, 64, [](int64_t r, int64_t c) {
    return std::sin(0.37f * static_cast<float>(r * 64 + c)) * (1 + r);
  });
  for (ElementType type : {ElementType::Q8_0, ElementType::Q4_0}) {
    auto q = quantizeRows(m, type);
    ASSERT_TRUE(bool(q));
    std::vector<float> back = dequantized(*q);
    const auto *values = reinterpret_cast<const float *>(m.data());
    for (size_t i = 0; i < back.size(); ++i) {
      float d = std::fabs(blockScale(type, q->data(), i / 32));
      float step = type == ElementType::Q8_0 ? 0.5f * d : d;
      EXPECT_LE(std::fabs(back[i] - values[i]),
                step + std::fabs(values[i]) / 1024)
          << i;
    }
  }
}

TEST(BlockPanels, RefusesPartialBlocks) {
  auto q = quantizeRows(matrix(2, 48, [](int64_t, int64_t) { return 1.0f; }),
                        ElementType::Q8_0);
  ASSERT_FALSE(bool(q));
  EXPECT_EQ(llvm::toString(q.takeError()),
            "cannot quantize a f32 [2, 48] tensor to q8_0: its rows are not "
            "whole blocks of 32");
}

TEST(BlockPanels, PanelLayout) {
  // Row r, column c holds r + c / 64 (so every quant of a row's block is
  // distinct after quantization); 3 rows in one panel of 4.
  auto m = matrix(3, 64, [](int64_t r, int64_t c) {
    return static_cast<float>(c) - 31.0f + 100.0f * static_cast<float>(r);
  });
  auto q = quantizeRows(m, ElementType::Q8_0);
  ASSERT_TRUE(bool(q));
  auto quants = packBlockPanels(*q, 1, 4, /*scales=*/false);
  auto scales = packBlockPanels(*q, 1, 4, /*scales=*/true);
  ASSERT_TRUE(bool(quants) && bool(scales));
  ASSERT_EQ(quants->size(), 1u * 2 * 32 * 4);
  ASSERT_EQ(scales->size(), 1u * 2 * 4 * 2);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 32; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        char expected = j < 3 ? q->data()[(j * 2 + b) * 34 + 2 + i] : 0;
        EXPECT_EQ((*quants)[(b * 32 + i) * 4 + j], expected);
      }
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 4; ++j) {
      uint16_t expected = 0, got;
      if (j < 3)
        std::memcpy(&expected, q->data() + (j * 2 + b) * 34, 2);
      std::memcpy(&got, scales->data() + (b * 4 + j) * 2, 2);
      EXPECT_EQ(got, expected);
    }
  // Q4_0 padding rows are nibbles of value 0 (8), not -8.
  auto q4 = quantizeRows(m, ElementType::Q4_0);
  ASSERT_TRUE(bool(q4));
  auto nibbles = packBlockPanels(*q4, 1, 4, /*scales=*/false);
  ASSERT_TRUE(bool(nibbles));
  ASSERT_EQ(nibbles->size(), 1u * 2 * 16 * 4);
  EXPECT_EQ(static_cast<uint8_t>((*nibbles)[3]), 0x88);
  EXPECT_EQ((*nibbles)[(16 + 5) * 4 + 1], q4->data()[(1 * 2 + 1) * 18 + 2 + 5]);
  // Rows that do not fit are an error.
  auto tooMany = packBlockPanels(*q, 1, 2, false);
  EXPECT_FALSE(bool(tooMany));
  llvm::consumeError(tooMany.takeError());
}

TEST(BlockPanels, FourBytesALane) {
  // tfm's q8_0x4: lane j of quad i holds row j's columns 4i..4i+3.
  auto m = matrix(3, 64, [](int64_t r, int64_t c) {
    return static_cast<float>(c) - 31.0f + 100.0f * static_cast<float>(r);
  });
  auto q = quantizeRows(m, ElementType::Q8_0);
  ASSERT_TRUE(bool(q));
  auto quads = packBlockPanels(*q, 1, 4, /*scales=*/false, 4);
  ASSERT_TRUE(bool(quads));
  ASSERT_EQ(quads->size(), 1u * 2 * 32 * 4);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t t = 0; t < 4; ++t) {
          char expected =
              j < 3 ? q->data()[(j * 2 + b) * 34 + 2 + 4 * i + t] : 0;
          EXPECT_EQ((*quads)[((b * 8 + i) * 4 + j) * 4 + t], expected);
        }
  // tfm's q4_0x4: the same for Q4_0's 16 bytes of two nibbles a block.
  auto q4 = quantizeRows(m, ElementType::Q4_0);
  ASSERT_TRUE(bool(q4));
  auto nibbles = packBlockPanels(*q4, 1, 4, /*scales=*/false, 4);
  ASSERT_TRUE(bool(nibbles));
  ASSERT_EQ(nibbles->size(), 1u * 2 * 16 * 4);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t t = 0; t < 4; ++t) {
          // A padding row's bytes are two nibbles of the value 0 (8).
          char expected =
              j < 3 ? q4->data()[(j * 2 + b) * 18 + 2 + 4 * i + t] : char(0x88);
          EXPECT_EQ((*nibbles)[((b * 4 + i) * 4 + j) * 4 + t], expected);
        }
  // A block's quant bytes fill whole lanes.
  auto triples = packBlockPanels(*q4, 1, 4, /*scales=*/false, 3);
  ASSERT_FALSE(bool(triples));
  EXPECT_EQ(llvm::toString(triples.takeError()),
            "cannot pack q4_0 quants 3 bytes a lane");
}

} // namespace
