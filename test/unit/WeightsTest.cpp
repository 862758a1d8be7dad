//===- WeightsTest.cpp - Element types, views and weight transforms -------===//
//
// compiler/weights: exact casts on the f16/bf16 edge values, the panel
// geometry and contents the package writer produces, stacking, transposes
// and lazily materialised canonical weights.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/PanelLayout.h"
#include "compiler/weights/Panels.h"
#include "compiler/weights/Transforms.h"
#include "compiler/weights/Weight.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace tfmc::weights;

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// The elements of an f32 view, read without assuming alignment.
std::vector<float> floats(const TensorView &view) {
  EXPECT_EQ(view.type(), ElementType::F32);
  std::vector<float> values(view.numElements());
  std::memcpy(values.data(), view.data(), view.bytes());
  return values;
}

/// An f32 matrix whose element [r, c] is r * 10 + c.
TensorView numbered(int64_t rows, int64_t cols) {
  std::vector<float> values;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      values.push_back(float(r * 10 + c));
  return TensorView::fromF32({rows, cols}, std::move(values));
}

/// A 16-bit tensor holding `bits` verbatim.
TensorView halves(ElementType type, Shape shape, std::vector<uint16_t> bits) {
  return TensorView::create(type, std::move(shape), [&](char *out) {
    std::memcpy(out, bits.data(), bits.size() * 2);
  });
}

TEST(ElementTypeTest, SizesAndNames) {
  EXPECT_EQ(storageBytes(ElementType::F32, 10), 40u);
  EXPECT_EQ(storageBytes(ElementType::F16, 10), 20u);
  EXPECT_EQ(storageBytes(ElementType::BF16, 10), 20u);
  EXPECT_EQ(storageBytes(ElementType::F32, UINT64_MAX / 2), UINT64_MAX);
  EXPECT_EQ(elementTypeName(ElementType::BF16), "bf16");
}

// The names come from ElementType.td, the list the IR's #tfm.stored and the
// --weights option parse: every type's name reads back as that type, and
// the conversion targets are the scalar types and GGUF's Q8_0 / Q4_0.
TEST(ElementTypeTest, OneListOfNames) {
  for (unsigned value = 0; value <= getMaxEnumValForElementType(); ++value) {
    std::optional<ElementType> type = symbolizeElementType(value);
    ASSERT_TRUE(type.has_value());
    EXPECT_EQ(symbolizeElementType(elementTypeName(*type)), type);
  }
  EXPECT_EQ(symbolizeElementType("q4_k"), ElementType::Q4_K);
  EXPECT_FALSE(symbolizeElementType("kquant").has_value());
  EXPECT_TRUE(isConversionTarget(ElementType::Q4_0));
  EXPECT_FALSE(isConversionTarget(ElementType::Q6_K));
  EXPECT_EQ(conversionTargetNames(), "f32, f16, bf16, q8_0 or q4_0");
}

// What the package writer derives from a panel layout: the block bytes,
// the quant width, and the k-quants' block length from the stored types.
TEST(PanelLayoutTest, Formats) {
  using tfmc::weights::PanelFormat;
  EXPECT_FALSE(isBlockFormat(PanelFormat::bf16));
  EXPECT_TRUE(isBlockFormat(PanelFormat::q4_0x4));
  EXPECT_EQ(panelElementType(PanelFormat::q8_0x4), ElementType::Q8_0);
  EXPECT_EQ(panelElementType(PanelFormat::f16), ElementType::F16);
  EXPECT_FALSE(panelElementType(PanelFormat::kquant).has_value());
  EXPECT_EQ(valuesPerQuant(PanelFormat::q4_0x4), 8);
  EXPECT_EQ(quantBits(PanelFormat::q8_0x4), 32u);
  EXPECT_EQ(quantBits(PanelFormat::kquant4), 8u);
  EXPECT_TRUE(holdsNibbles(PanelFormat::kquant4));
  EXPECT_TRUE(hasMins(PanelFormat::kquant));
  EXPECT_FALSE(hasMins(PanelFormat::q4_0));
  EXPECT_EQ(blockValues(PanelFormat::kquant, {ElementType::Q5_K}), 32);
  EXPECT_EQ(
      blockValues(PanelFormat::kquant, {ElementType::Q4_K, ElementType::Q5_K}),
      16);
  EXPECT_EQ(blockValues(PanelFormat::kquant4, {ElementType::Q4_K}), 32);
  EXPECT_TRUE(hasZeroMins(PanelFormat::kquant, {ElementType::Q6_K}));
  // The k-quants' byte quads: kquant's and kquant4's values, four bytes a
  // lane, kquantx4's quants biased to unsigned bytes.
  EXPECT_EQ(byteQuadFormat(PanelFormat::kquant), PanelFormat::kquantx4);
  EXPECT_EQ(byteQuadFormat(PanelFormat::kquant4), PanelFormat::kquant4x4);
  EXPECT_EQ(byteQuadFormat(PanelFormat::q4_0), PanelFormat::q4_0x4);
  EXPECT_FALSE(byteQuadFormat(PanelFormat::kquantx4).has_value());
  EXPECT_TRUE(holdsByteQuads(PanelFormat::kquant4x4));
  EXPECT_FALSE(holdsByteQuads(PanelFormat::kquant4));
  EXPECT_EQ(valuesPerQuant(PanelFormat::kquantx4), 4);
  EXPECT_EQ(valuesPerQuant(PanelFormat::kquant4x4), 8);
  EXPECT_TRUE(hasMins(PanelFormat::kquant4x4));
  EXPECT_EQ(quantBias(PanelFormat::kquantx4), 32);
  EXPECT_EQ(quantBias(PanelFormat::kquant4x4), 0);
  EXPECT_EQ(blockValues(PanelFormat::kquantx4, {ElementType::Q6_K}), 16);
  EXPECT_EQ(blockValues(PanelFormat::kquant4x4, {ElementType::Q4_K}), 32);
  EXPECT_TRUE(hasZeroMins(PanelFormat::kquantx4, {ElementType::Q6_K}));
  EXPECT_FALSE(
      hasZeroMins(PanelFormat::kquant, {ElementType::Q4_K, ElementType::Q6_K}));
  // The panels that hold a file's blocks as they are: one type, or a stack
  // of k-quants; nothing for other types or other mixes.
  EXPECT_EQ(storedBlockFormat({ElementType::Q8_0}), PanelFormat::q8_0);
  EXPECT_EQ(storedBlockFormat({ElementType::Q4_0, ElementType::Q4_0}),
            PanelFormat::q4_0);
  EXPECT_EQ(storedBlockFormat({ElementType::Q4_K}), PanelFormat::kquant4);
  EXPECT_EQ(storedBlockFormat({ElementType::Q6_K}), PanelFormat::kquant);
  EXPECT_EQ(storedBlockFormat(
                {ElementType::Q4_K, ElementType::Q4_K, ElementType::Q6_K}),
            PanelFormat::kquant);
  EXPECT_FALSE(storedBlockFormat({}).has_value());
  EXPECT_FALSE(storedBlockFormat({ElementType::F16}).has_value());
  EXPECT_FALSE(
      storedBlockFormat({ElementType::Q4_0, ElementType::Q4_K}).has_value());
}

TEST(CastTest, HalfEdgeValuesAreExact) {
  EXPECT_EQ(bitsOf(halfToFloat(0x0000)), 0x00000000u); // +0
  EXPECT_EQ(bitsOf(halfToFloat(0x8000)), 0x80000000u); // -0
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);              // largest normal
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14)); // smallest normal
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(bitsOf(halfToFloat(0x7c00)), 0x7f800000u); // +inf
  EXPECT_EQ(bitsOf(halfToFloat(0xfc00)), 0xff800000u); // -inf
  EXPECT_EQ(bitsOf(halfToFloat(0x7e00)), 0x7fc00000u); // quiet NaN
  EXPECT_EQ(bitsOf(halfToFloat(0x7c01)), 0x7f802000u); // payload kept
  EXPECT_EQ(bitsOf(halfToFloat(0xfe00)), 0xffc00000u); // negative NaN
}

TEST(CastTest, Bfloat16EdgeValuesAreExact) {
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x8000)), 0x80000000u);
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x0001)), 0x00010000u); // subnormal
  EXPECT_EQ(bfloat16ToFloat(0x0001), std::ldexp(1.0f, -133));
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x7f80)), 0x7f800000u);
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0xff80)), 0xff800000u);
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x7fc1)), 0x7fc10000u);
  EXPECT_EQ(bfloat16ToFloat(0x7f7f), 0x1.fep127f); // largest finite
}

TEST(CastTest, WidensTensors) {
  auto half =
      cast(halves(ElementType::F16, {2, 2}, {0x3c00, 0x0001, 0x7c00, 0xc000}),
           ElementType::F32);
  ASSERT_TRUE(bool(half)) << llvm::toString(half.takeError());
  EXPECT_EQ(half->shape(), (Shape{2, 2}));
  std::vector<float> values = floats(*half);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(values[2]));
  EXPECT_EQ(values[3], -2.0f);

  auto brain = cast(halves(ElementType::BF16, {3}, {0x3f80, 0x4000, 0xbf80}),
                    ElementType::F32);
  ASSERT_TRUE(bool(brain)) << llvm::toString(brain.takeError());
  EXPECT_EQ(floats(*brain), (std::vector<float>{1.0f, 2.0f, -1.0f}));
}

TEST(CastTest, SameTypeIsTheSameBytes) {
  TensorView matrix = numbered(2, 3);
  auto same = cast(matrix, ElementType::F32);
  ASSERT_TRUE(bool(same)) << llvm::toString(same.takeError());
  EXPECT_EQ(same->data(), matrix.data());
}

TEST(CastTest, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.99f), 0x7bff); // below the halfway point
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);  // halfway, to even: infinity
  EXPECT_EQ(floatToHalf(-1e10f), 0xfc00);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to the even 1.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between odd and even: up to the even one.
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3c01);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // halfway: to even 0
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002); // halfway: to even 2
  EXPECT_EQ(floatToHalf(std::ldexp(1023.75f, -24)), 0x0400); // carries
  EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(floatToHalf(-NAN) & 0xfe00, 0xfe00); // a negative quiet NaN
  // Every half survives the round trip.
  for (uint32_t bits = 0; bits < 0x10000; ++bits)
    if ((bits & 0x7c00) != 0x7c00 || (bits & 0x3ff) == 0) {
      ASSERT_EQ(floatToHalf(halfToFloat(uint16_t(bits))), bits) << bits;
    }
}

TEST(CastTest, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to the even 1.
  EXPECT_EQ(floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(floatToBfloat16(0x1.fffffep127f), 0x7f80); // rounds to infinity
  EXPECT_EQ(floatToBfloat16(NAN) & 0x7fc0, 0x7fc0);
  for (uint32_t bits = 0; bits < 0x10000; ++bits)
    if ((bits & 0x7f80) != 0x7f80 || (bits & 0x7f) == 0) {
      ASSERT_EQ(floatToBfloat16(bfloat16ToFloat(uint16_t(bits))), bits) << bits;
    }
}

TEST(CastTest, NarrowsTensorsOnce) {
  auto half =
      cast(TensorView::fromF32({3}, {1.0f, 0.1f, -70000.0f}), ElementType::F16);
  ASSERT_TRUE(bool(half)) << llvm::toString(half.takeError());
  uint16_t bits[3];
  std::memcpy(bits, half->data(), sizeof(bits));
  EXPECT_EQ(std::vector<uint16_t>(bits, bits + 3),
            (std::vector<uint16_t>{0x3c00, 0x2e66, 0xfc00}));
  // bf16 -> f16 goes through the exact f32 value: one rounding.
  auto across = cast(halves(ElementType::BF16, {1}, {0x3dcd}), // 0.10009765625
                     ElementType::F16);
  ASSERT_TRUE(bool(across)) << llvm::toString(across.takeError());
  std::memcpy(bits, across->data(), 2);
  EXPECT_EQ(bits[0], 0x2e68);
}

TEST(TransposeTest, SwapsRowsAndColumns) {
  TensorView t = transpose(numbered(2, 3));
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(floats(t), (std::vector<float>{0, 10, 1, 11, 2, 12}));

  TensorView h = transpose(halves(ElementType::F16, {2, 2}, {1, 2, 3, 4}));
  EXPECT_EQ(h.type(), ElementType::F16);
  uint16_t bits[4];
  std::memcpy(bits, h.data(), sizeof(bits));
  EXPECT_EQ(std::vector<uint16_t>(bits, bits + 4),
            (std::vector<uint16_t>{1, 3, 2, 4}));
}

TEST(StackTest, ConcatenatesRows) {
  auto stacked = stack({numbered(2, 2), numbered(1, 2)});
  ASSERT_TRUE(bool(stacked)) << llvm::toString(stacked.takeError());
  EXPECT_EQ(stacked->shape(), (Shape{3, 2}));
  EXPECT_EQ(floats(*stacked), (std::vector<float>{0, 1, 10, 11, 0, 1}));

  auto vectors =
      stack({TensorView::fromF32({2}, {1, 2}), TensorView::fromF32({1}, {3})});
  ASSERT_TRUE(bool(vectors)) << llvm::toString(vectors.takeError());
  EXPECT_EQ(floats(*vectors), (std::vector<float>{1, 2, 3}));
}

TEST(StackTest, OnePartIsItself) {
  TensorView matrix = numbered(2, 2);
  auto stacked = stack({matrix});
  ASSERT_TRUE(bool(stacked)) << llvm::toString(stacked.takeError());
  EXPECT_EQ(stacked->data(), matrix.data());
}

TEST(StackTest, RejectsMismatchedParts) {
  auto columns = stack({numbered(2, 2), numbered(2, 3)});
  ASSERT_FALSE(bool(columns));
  EXPECT_EQ(llvm::toString(columns.takeError()),
            "cannot stack f32 [2, 3] onto f32 [2, 2]");
  auto types = stack({numbered(1, 1), halves(ElementType::F16, {1, 1}, {0})});
  ASSERT_FALSE(bool(types));
  EXPECT_EQ(llvm::toString(types.takeError()),
            "cannot stack f16 [1, 1] onto f32 [1, 1]");
}

TEST(PanelsTest, Geometry) {
  // Whole panels; zero panels up to a multiple of the group only when they
  // cost at most 1/64 of the matrix.
  EXPECT_EQ(panelCount(64, 16, 8), 4);
  EXPECT_EQ(panelCount(20, 16, 8), 2);
  EXPECT_EQ(panelCount(16 * 63, 16, 8), 63);
  EXPECT_EQ(panelCount(16 * 127, 16, 8), 128);
  EXPECT_EQ(panelCount(50257, 16, 8), 3144); // GPT-2's classifier
  EXPECT_EQ(panelCount(5, 4, 1), 2);
}

TEST(PanelsTest, ContentsAreColumnsOfRowGroupsZeroPadded) {
  // 5 rows of 3 in 3 panels of 2: out[p][k][j] = row p * 2 + j, column k.
  auto packed = packPanels(numbered(5, 3), 3, 2);
  ASSERT_TRUE(bool(packed)) << llvm::toString(packed.takeError());
  EXPECT_EQ(packed->shape(), (Shape{3, 3, 2}));
  EXPECT_EQ(floats(*packed), (std::vector<float>{
                                 0,
                                 10,
                                 1,
                                 11,
                                 2,
                                 12, // rows 0, 1
                                 20,
                                 30,
                                 21,
                                 31,
                                 22,
                                 32, // rows 2, 3
                                 40,
                                 0,
                                 41,
                                 0,
                                 42,
                                 0, // row 4, padding
                             }));
}

TEST(PanelsTest, PadsWholePanels) {
  auto packed = packPanels(numbered(2, 1), 2, 2);
  ASSERT_TRUE(bool(packed)) << llvm::toString(packed.takeError());
  EXPECT_EQ(floats(*packed), (std::vector<float>{0, 10, 0, 0}));
}

TEST(PanelsTest, PacksHalves) {
  auto packed =
      packPanels(halves(ElementType::BF16, {3, 2}, {1, 2, 3, 4, 5, 6}), 2, 2);
  ASSERT_TRUE(bool(packed)) << llvm::toString(packed.takeError());
  uint16_t bits[8];
  std::memcpy(bits, packed->data(), sizeof(bits));
  EXPECT_EQ(std::vector<uint16_t>(bits, bits + 8),
            (std::vector<uint16_t>{1, 3, 2, 4, 5, 0, 6, 0}));
}

TEST(PanelsTest, RejectsRowsBeyondThePanels) {
  auto packed = packPanels(numbered(5, 3), 2, 2);
  ASSERT_FALSE(bool(packed));
  EXPECT_EQ(llvm::toString(packed.takeError()),
            "a [5, 3] matrix does not fit 2 panels of 2 rows");
}

TEST(TensorViewTest, SelectAndRowsShareTheBytes) {
  TensorView stacked = numbered(4, 3);
  TensorView row = stacked.select(2);
  EXPECT_EQ(row.shape(), (Shape{3}));
  EXPECT_EQ(row.data(), stacked.data() + 2 * 3 * 4);
  EXPECT_EQ(floats(row), (std::vector<float>{20, 21, 22}));
  TensorView middle = stacked.rows(1, 2);
  EXPECT_EQ(middle.shape(), (Shape{2, 3}));
  EXPECT_EQ(floats(middle), (std::vector<float>{10, 11, 12, 20, 21, 22}));
}

TEST(WeightTest, AsStoredIsTheSourceItself) {
  TensorView matrix = numbered(2, 3);
  Weight weight(matrix);
  EXPECT_EQ(weight.shape(), (Shape{2, 3}));
  auto tensor = weight.materialize(ElementType::F32);
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->data(), matrix.data());
}

TEST(WeightTest, TransposeThenRowsIsAConv1DSplit) {
  // GPT-2's c_attn: [in = 2, 3 * out = 6], Q/K/V are row ranges of its
  // transpose. K is rows [2, 4).
  Weight k = Weight(numbered(2, 6))
                 .then(Transform::transpose())
                 .then(Transform::rows(2, 2));
  EXPECT_EQ(k.shape(), (Shape{2, 2}));
  auto tensor = k.materialize(ElementType::F32);
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(floats(*tensor), (std::vector<float>{2, 12, 3, 13}));
}

TEST(WeightTest, CastsAfterTheSteps) {
  Weight weight =
      Weight(halves(ElementType::F16, {2, 2}, {0x3c00, 0x4000, 0x4200, 0x4400}))
          .then(Transform::transpose());
  auto tensor = weight.materialize(ElementType::F32);
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(floats(*tensor), (std::vector<float>{1, 3, 2, 4}));
}

} // namespace

namespace {

TEST(QuantizedTest, BlockGeometry) {
  EXPECT_EQ(blockElements(ElementType::Q8_0), 32u);
  EXPECT_EQ(storageBytes(ElementType::Q8_0, 64), 68u);
  EXPECT_EQ(storageBytes(ElementType::Q4_0, 64), 36u);
  EXPECT_EQ(elementTypeName(ElementType::Q4_0), "q4_0");
}

TEST(QuantizedTest, DequantizesAsGgmlDefines) {
  // Q8_0: d = 0.5 (f16 0x3800), q[j] = j - 16.
  std::vector<uint8_t> q8 = {0x00, 0x38};
  for (int j = 0; j < 32; ++j)
    q8.push_back(uint8_t(int8_t(j - 16)));
  TensorView eight(ElementType::Q8_0, {1, 32},
                   reinterpret_cast<const char *>(q8.data()), nullptr);
  auto wide = cast(eight, ElementType::F32);
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  std::vector<float> values = floats(*wide);
  EXPECT_EQ(values[0], -8.0f);
  EXPECT_EQ(values[31], 7.5f);
  EXPECT_EQ(elementAsFloat(eight, 17), 0.5f);

  // Q4_0: d = -2 (f16 0xc000); byte j holds q[j] = j (low) and q[j + 16] =
  // 15 - j (high); values (q - 8) * d.
  std::vector<uint8_t> q4 = {0x00, 0xc0};
  for (int j = 0; j < 16; ++j)
    q4.push_back(uint8_t(j | ((15 - j) << 4)));
  TensorView four(ElementType::Q4_0, {32},
                  reinterpret_cast<const char *>(q4.data()), nullptr);
  auto half = cast(four, ElementType::F16); // dequantized, then rounded
  ASSERT_TRUE(bool(half)) << llvm::toString(half.takeError());
  uint16_t bits[32];
  std::memcpy(bits, half->data(), sizeof(bits));
  EXPECT_EQ(halfToFloat(bits[0]), 16.0f);   // (0 - 8) * -2
  EXPECT_EQ(halfToFloat(bits[15]), -14.0f); // (15 - 8) * -2
  EXPECT_EQ(halfToFloat(bits[16]), -14.0f); // (15 - 8) * -2
  EXPECT_EQ(halfToFloat(bits[31]), 16.0f);
}

TEST(QuantizedTest, KQuantGeometry) {
  EXPECT_EQ(blockElements(ElementType::Q4_K), 256u);
  EXPECT_EQ(storageBytes(ElementType::Q4_K, 512), 288u);
  EXPECT_EQ(storageBytes(ElementType::Q5_K, 256), 176u);
  EXPECT_EQ(storageBytes(ElementType::Q6_K, 512), 420u);
  EXPECT_EQ(elementTypeName(ElementType::Q6_K), "q6_k");
}

TEST(QuantizedTest, DequantizesQ4KAsGgmlDefines) {
  // d = 1, dmin = 0.5; sub-block j has scale j + 1 and min j, except
  // sub-block 4 whose scale 37 needs the two top bits kept in byte 0.
  std::vector<uint8_t> block = {0x00, 0x3c, 0x00, 0x38};
  uint8_t packed[12] = {1 | (2 << 6),
                        2,
                        3,
                        4,
                        0,
                        1,
                        2,
                        3,
                        (37 & 15) | (4 << 4),
                        6 | (5 << 4),
                        7 | (6 << 4),
                        8 | (7 << 4)};
  block.insert(block.end(), packed, packed + 12);
  block.resize(144, 0x21); // each byte: low nibble 1, high nibble 2
  TensorView tensor(ElementType::Q4_K, {256},
                    reinterpret_cast<const char *>(block.data()), nullptr);
  auto wide = cast(tensor, ElementType::F32);
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  std::vector<float> values = floats(*wide);
  // Each 64 values: the low nibbles are sub-block 2c, the high 2c + 1;
  // value (d * scale) * q - dmin * min.
  EXPECT_EQ(values[0], 1.0f);    // 1 * 1 - 0.5 * 0
  EXPECT_EQ(values[32], 3.5f);   // 2 * 2 - 0.5 * 1
  EXPECT_EQ(values[128], 35.0f); // 37 * 1 - 0.5 * 4
  EXPECT_EQ(values[192], 4.0f);  // 7 * 1 - 0.5 * 6
  EXPECT_EQ(values[255], 12.5f); // 8 * 2 - 0.5 * 7
}

TEST(QuantizedTest, DequantizesQ6KAsGgmlDefines) {
  // d = 0.5 (last); scale k = k + 1; every value's 6 bits are 0 (q = -32)
  // except value 0: low nibble 5 and high bits 01, q = 5 + 16 - 32.
  std::vector<uint8_t> block(210, 0);
  block[0] = 0x05;
  block[128] = 0x01;
  for (int k = 0; k < 16; ++k)
    block[192 + k] = uint8_t(k + 1);
  block[208] = 0x00;
  block[209] = 0x38;
  TensorView tensor(ElementType::Q6_K, {256},
                    reinterpret_cast<const char *>(block.data()), nullptr);
  auto wide = cast(tensor, ElementType::F32);
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  std::vector<float> values = floats(*wide);
  EXPECT_EQ(values[0], -5.5f);     // 0.5 * 1 * -11
  EXPECT_EQ(values[64], -80.0f);   // value 0 + 32 * 2: scale 4 + 1
  EXPECT_EQ(values[200], -208.0f); // half 1, l = 8, i = 2: scale 8 + 4 + 1
  EXPECT_EQ(elementAsFloat(tensor, 16), -32.0f); // scale 1 + 1
}

TEST(QuantizedTest, IsNotAConversionTarget) {
  auto narrowed = cast(numbered(1, 32), ElementType::Q8_0);
  ASSERT_FALSE(bool(narrowed));
  EXPECT_EQ(llvm::toString(narrowed.takeError()), "cannot convert f32 to q8_0");
}

TEST(QuantizedTest, NonFiniteScaleIsFound) {
  std::vector<uint8_t> blocks(2 * 34, 0);
  blocks[34] = 0x00;
  blocks[35] = 0x7c; // block 1's scale is +inf
  TensorView tensor(ElementType::Q8_0, {64},
                    reinterpret_cast<const char *>(blocks.data()), nullptr);
  EXPECT_EQ(findNonFinite(tensor), std::optional<uint64_t>(32));

  std::vector<uint8_t> k(2 * 144, 0);
  k[144 + 2] = 0x00;
  k[144 + 3] = 0xfc; // block 1's dmin is -inf
  TensorView kTensor(ElementType::Q4_K, {512},
                     reinterpret_cast<const char *>(k.data()), nullptr);
  EXPECT_EQ(findNonFinite(kTensor), std::optional<uint64_t>(256));
}

} // namespace
