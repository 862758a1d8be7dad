//===- KQuantPanelsTest.cpp - k-quants unpacked into kquant panels
//---------===//
//
// compiler/weights/KQuantPanels and the super-block unpacking beneath it:
// hand-built Q4_K and Q6_K super-blocks give the quants, scales and
// minimums worked out from the format, `q * scale - min` is the
// dequantized value, finer sub-blocks repeat a scale, and each byte lands
// where the panel layout says.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/KQuantPanels.h"
#include "compiler/weights/KQuants.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace tfmc::weights;

namespace {

/// A Q4_K super-block with d = 1, dmin = 0.5, sub-block j's 6-bit scale
/// j + 1 and min 2j (so its scale is j + 1 and its minimum j), and byte l
/// of each 32-byte chunk holding l % 16 low and 15 - l % 16 high.
std::string q4KBlock() {
  std::string block(kQ4KBlockBytes, '\0');
  auto *bytes = reinterpret_cast<uint8_t *>(block.data());
  bytes[0] = 0x00, bytes[1] = 0x3c; // f16 1.0
  bytes[2] = 0x00, bytes[3] = 0x38; // f16 0.5
  uint8_t *packed = bytes + 4;
  for (int j = 0; j < 4; ++j) {
    packed[j] = j + 1;
    packed[j + 4] = 2 * j;
    // Sub-blocks 4..7: scale and min below 16, no top bits.
    packed[8 + j] = (j + 5) | ((2 * (j + 4)) << 4);
  }
  for (int chunk = 0; chunk < 4; ++chunk)
    for (int l = 0; l < 32; ++l)
      bytes[16 + 32 * chunk + l] = (l % 16) | ((15 - l % 16) << 4);
  return block;
}

/// A Q6_K super-block with d = 0.5, sub-block s's scale s - 8, every quant
/// 5 (low nibbles 5, high bits 2: 37 - 32).
std::string q6KBlock() {
  std::string block(kQ6KBlockBytes, '\0');
  auto *bytes = reinterpret_cast<uint8_t *>(block.data());
  std::memset(bytes, 0x55, 128);
  std::memset(bytes + 128, 0xaa, 64);
  for (int s = 0; s < 16; ++s)
    bytes[192 + s] = static_cast<uint8_t>(static_cast<int8_t>(s - 8));
  bytes[208] = 0x00, bytes[209] = 0x38; // f16 0.5
  return block;
}

/// No rows yet, of 256 columns in blocks of `subBlock`.
KQuantRows noRows(int64_t subBlock) {
  KQuantRows rows;
  rows.columns = 256;
  rows.subBlock = subBlock;
  return rows;
}

TensorView view(ElementType type, int64_t rows, const std::string &block) {
  return TensorView::create(type, {rows, 256}, [&](char *out) {
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(out + r * block.size(), block.data(), block.size());
  });
}

TEST(KQuantPanels, Q4KUnpacksScalesMinsAndNibbles) {
  std::string block = q4KBlock();
  KQuantSuperBlock unpacked;
  unpackQ4K(block.data(), unpacked);
  EXPECT_EQ(unpacked.subBlock, 32);
  float values[256];
  dequantizeQ4K(block.data(), 1, values);
  for (int e = 0; e < 256; ++e) {
    int sub = e / 32, l = e % 32;
    int expected = sub % 2 == 0 ? l % 16 : 15 - l % 16;
    ASSERT_EQ(unpacked.quant[e], expected) << "value " << e;
    ASSERT_EQ(values[e], float(sub + 1) * float(expected) - float(sub))
        << "value " << e;
  }
  for (int sub = 0; sub < 8; ++sub) {
    EXPECT_EQ(unpacked.scale[sub], float(sub + 1));
    EXPECT_EQ(unpacked.min[sub], float(sub));
  }
}

TEST(KQuantPanels, Q6KUnpacksSignedQuantsAndSixteenScales) {
  std::string block = q6KBlock();
  KQuantSuperBlock unpacked;
  unpackQ6K(block.data(), unpacked);
  EXPECT_EQ(unpacked.subBlock, 16);
  float values[256];
  dequantizeQ6K(block.data(), 1, values);
  for (int e = 0; e < 256; ++e) {
    ASSERT_EQ(unpacked.quant[e], 5) << "value " << e;
    ASSERT_EQ(values[e], 0.5f * float(e / 16 - 8) * 5.0f) << "value " << e;
  }
  for (int sub = 0; sub < 16; ++sub) {
    EXPECT_EQ(unpacked.scale[sub], 0.5f * float(sub - 8));
    EXPECT_EQ(unpacked.min[sub], 0.0f);
  }
}

TEST(KQuantPanels, StacksKindsInSubBlocksOfSixteen) {
  // A Q4_K row then a Q6_K row, in blocks of 16: each Q4_K scale twice.
  KQuantRows rows = noRows(16);
  ASSERT_FALSE(appendKQuantRows(view(ElementType::Q4_K, 1, q4KBlock()), rows));
  ASSERT_FALSE(appendKQuantRows(view(ElementType::Q6_K, 1, q6KBlock()), rows));
  EXPECT_EQ(rows.rows, 2);
  ASSERT_EQ(rows.scales.size(), 32u);
  for (int b = 0; b < 16; ++b) {
    EXPECT_EQ(rows.scales[b], float(b / 2 + 1));
    EXPECT_EQ(rows.mins[b], float(b / 2));
    EXPECT_EQ(rows.scales[16 + b], 0.5f * float(b - 8));
    EXPECT_EQ(rows.mins[16 + b], 0.0f);
  }
}

TEST(KQuantPanels, IntegerScalesAndFactorsRemakeTheFloatOnes) {
  // A Q4_K row then a Q6_K row in blocks of 16: the integers GGUF stores
  // per sub-block, each row's d and dmin, and `d * scale`, `dmin * min`
  // exactly the f32 scales and minimums.
  KQuantRows rows = noRows(16);
  ASSERT_FALSE(appendKQuantRows(view(ElementType::Q4_K, 1, q4KBlock()), rows));
  ASSERT_FALSE(appendKQuantRows(view(ElementType::Q6_K, 1, q6KBlock()), rows));
  ASSERT_EQ(rows.subScales.size(), 32u);
  ASSERT_EQ(rows.factors.size(), 4u);
  EXPECT_EQ(rows.factors[0], 1.0f);
  EXPECT_EQ(rows.factors[1], 0.5f);
  EXPECT_EQ(rows.factors[2], 0.5f);
  EXPECT_EQ(rows.factors[3], 0.0f);
  for (int b = 0; b < 16; ++b) {
    EXPECT_EQ(rows.subScales[b], b / 2 + 1);
    EXPECT_EQ(rows.subMins[b], 2 * (b / 2));
    EXPECT_EQ(rows.subScales[16 + b], b - 8);
    EXPECT_EQ(rows.subMins[16 + b], 0);
  }
  for (int r = 0; r < 2; ++r)
    for (int b = 0; b < 16; ++b) {
      EXPECT_EQ(rows.factors[2 * r] * float(rows.subScales[16 * r + b]),
                rows.scales[16 * r + b]);
      EXPECT_EQ(rows.factors[2 * r + 1] * float(rows.subMins[16 * r + b]),
                rows.mins[16 * r + b]);
    }

  // Panels of 4 rows: the integers a byte per row and sub-block, the
  // factors [P, KS, F, W] f32 (d alone or d and dmin), zero past the rows.
  auto scales = packKQuantPanels(rows, 1, 4, KQuantPart::SubScales);
  ASSERT_TRUE(bool(scales)) << llvm::toString(scales.takeError());
  ASSERT_EQ(scales->size(), 16u * 4u);
  for (int b = 0; b < 16; ++b) {
    EXPECT_EQ(static_cast<int8_t>((*scales)[b * 4 + 0]), b / 2 + 1);
    EXPECT_EQ(static_cast<int8_t>((*scales)[b * 4 + 1]), b - 8);
    EXPECT_EQ((*scales)[b * 4 + 2], '\0');
  }
  auto mins = packKQuantPanels(rows, 1, 4, KQuantPart::SubMins);
  ASSERT_TRUE(bool(mins)) << llvm::toString(mins.takeError());
  EXPECT_EQ(static_cast<int8_t>((*mins)[3 * 4 + 0]), 2);
  auto both = packKQuantPanels(rows, 1, 4, KQuantPart::ScaleAndMinFactors);
  ASSERT_TRUE(bool(both)) << llvm::toString(both.takeError());
  ASSERT_EQ(both->size(), 2u * 4u * sizeof(float));
  float factors[8];
  std::memcpy(factors, both->data(), sizeof(factors));
  EXPECT_EQ(factors[0], 1.0f); // d of row 0
  EXPECT_EQ(factors[1], 0.5f); // d of row 1
  EXPECT_EQ(factors[2], 0.0f); // a padding row
  EXPECT_EQ(factors[4], 0.5f); // dmin of row 0
  EXPECT_EQ(factors[5], 0.0f); // Q6_K has none
  auto scaleOnly = packKQuantPanels(rows, 1, 4, KQuantPart::ScaleFactors);
  ASSERT_TRUE(bool(scaleOnly)) << llvm::toString(scaleOnly.takeError());
  EXPECT_EQ(scaleOnly->size(), 4u * sizeof(float));
}

TEST(KQuantPanels, RefusesCoarserBlocksAndOtherTypes) {
  KQuantRows rows = noRows(32);
  llvm::Error coarse =
      appendKQuantRows(view(ElementType::Q6_K, 1, q6KBlock()), rows);
  EXPECT_EQ(llvm::toString(std::move(coarse)),
            "q6_k scales cover 16 values, not 32");
  llvm::Error f32 = appendKQuantRows(
      TensorView::fromF32({1, 256}, std::vector<float>(256, 1.0f)), rows);
  EXPECT_EQ(llvm::toString(std::move(f32)),
            "the kquant layout holds Q4_K, Q5_K and Q6_K tensors, not f32");
}

TEST(KQuantPanels, PanelsPlaceEachQuantScaleAndMin) {
  // Three Q4_K rows in one panel of 4 rows, blocks of 32: quant [0, b, i,
  // j] is row j, column 32 b + i; row 3 is padding (all zero).
  KQuantRows rows = noRows(32);
  ASSERT_FALSE(appendKQuantRows(view(ElementType::Q4_K, 3, q4KBlock()), rows));
  auto quants = packKQuantPanels(rows, 1, 4, KQuantPart::Quants);
  ASSERT_TRUE(bool(quants)) << llvm::toString(quants.takeError());
  ASSERT_EQ(quants->size(), 8u * 32 * 4);
  for (int b = 0; b < 8; ++b)
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 4; ++j) {
        int expected = j == 3 ? 0 : b % 2 == 0 ? i % 16 : 15 - i % 16;
        ASSERT_EQ((*quants)[(b * 32 + i) * 4 + j], expected)
            << b << " " << i << " " << j;
      }
  auto mins = packKQuantPanels(rows, 1, 4, KQuantPart::Mins);
  ASSERT_TRUE(bool(mins)) << llvm::toString(mins.takeError());
  ASSERT_EQ(mins->size(), 8u * 4 * sizeof(float));
  float min;
  std::memcpy(&min, mins->data() + (5 * 4 + 2) * sizeof(float), sizeof(min));
  EXPECT_EQ(min, 5.0f);
  std::memcpy(&min, mins->data() + (5 * 4 + 3) * sizeof(float), sizeof(min));
  EXPECT_EQ(min, 0.0f);
  EXPECT_FALSE(bool(packKQuantPanels(rows, 1, 2, KQuantPart::Scales)))
      << "3 rows do not fit a panel of 2";
}

TEST(KQuantPanels, Kquant4PacksTwoNibblesAByte) {
  // One Q4_K row in one panel of 2 rows: byte [0, b, i, 0] holds column
  // 32 b + i low and 32 b + 16 + i high; the padding row is zero.
  KQuantRows rows = noRows(32);
  ASSERT_FALSE(appendKQuantRows(view(ElementType::Q4_K, 1, q4KBlock()), rows));
  auto nibbles = packKQuantPanels(rows, 1, 2, KQuantPart::Nibbles);
  ASSERT_TRUE(bool(nibbles)) << llvm::toString(nibbles.takeError());
  ASSERT_EQ(nibbles->size(), 8u * 16 * 2);
  for (int b = 0; b < 8; ++b)
    for (int i = 0; i < 16; ++i) {
      int low = b % 2 == 0 ? i : 15 - i;
      int high = b % 2 == 0 ? (16 + i) % 16 : 15 - (16 + i) % 16;
      ASSERT_EQ(uint8_t((*nibbles)[(b * 16 + i) * 2]), low | (high << 4))
          << b << " " << i;
      ASSERT_EQ((*nibbles)[(b * 16 + i) * 2 + 1], 0) << b << " " << i;
    }
  // A Q6_K quant is signed and its blocks are 16: neither fits kquant4.
  KQuantRows sixteen = noRows(16);
  ASSERT_FALSE(
      appendKQuantRows(view(ElementType::Q6_K, 1, q6KBlock()), sixteen));
  EXPECT_EQ(
      llvm::toString(
          packKQuantPanels(sixteen, 1, 2, KQuantPart::Nibbles).takeError()),
      "kquant4 packs blocks of 32 values, not 16");
}

TEST(KQuantPanels, ByteQuadsHoldFourBytesOfARowALane) {
  // kquantx4: three Q4_K rows in a panel of 4, blocks of 32; byte t of lane
  // [0, b, i, j] is the quant of row j, column 32 b + 4 i + t, plus the
  // bias; the padding row holds the bias (quant 0).
  KQuantRows rows = noRows(32);
  ASSERT_FALSE(appendKQuantRows(view(ElementType::Q4_K, 3, q4KBlock()), rows));
  auto quads = packKQuantPanels(rows, 1, 4, KQuantPart::Quants,
                                /*bytesPerLane=*/4, /*bias=*/32);
  ASSERT_TRUE(bool(quads)) << llvm::toString(quads.takeError());
  ASSERT_EQ(quads->size(), 8u * 32 * 4);
  auto quant = [](int b, int column) {
    return b % 2 == 0 ? column % 16 : 15 - column % 16;
  };
  for (int b = 0; b < 8; ++b)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 4; ++j)
        for (int t = 0; t < 4; ++t) {
          int expected = 32 + (j == 3 ? 0 : quant(b, 4 * i + t));
          ASSERT_EQ((*quads)[((b * 8 + i) * 4 + j) * 4 + t], expected)
              << b << " " << i << " " << j << " " << t;
        }
  // kquant4x4: the bytes of two nibbles, byte t of lane [0, b, i, j] the
  // byte 4 i + t of kquant4's block (columns 32 b + 4 i + t low, + 16 high).
  auto nibbleQuads = packKQuantPanels(rows, 1, 4, KQuantPart::Nibbles,
                                      /*bytesPerLane=*/4);
  ASSERT_TRUE(bool(nibbleQuads)) << llvm::toString(nibbleQuads.takeError());
  ASSERT_EQ(nibbleQuads->size(), 8u * 16 * 4);
  for (int b = 0; b < 8; ++b)
    for (int i = 0; i < 4; ++i)
      for (int t = 0; t < 4; ++t) {
        int column = 4 * i + t;
        int pair = quant(b, column) | (quant(b, column + 16) << 4);
        ASSERT_EQ(uint8_t((*nibbleQuads)[((b * 4 + i) * 4 + 0) * 4 + t]), pair)
            << b << " " << i << " " << t;
        ASSERT_EQ((*nibbleQuads)[((b * 4 + i) * 4 + 3) * 4 + t], 0);
      }
  EXPECT_EQ(llvm::toString(packKQuantPanels(rows, 1, 4, KQuantPart::Quants,
                                            /*bytesPerLane=*/3)
                               .takeError()),
            "a block's 32 quant bytes do not fill lanes of 3");
}

} // namespace
