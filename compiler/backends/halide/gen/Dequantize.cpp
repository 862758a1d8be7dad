//===- Dequantize.cpp - Weights read from their stored bytes --------------===//
//
// Each format's byte offsets are the ones compiler/weights/Quantized.cpp and
// KQuants.cpp read; the harness of test/halide checks the values bit for
// bit against them.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/Dequantize.h"

#include "compiler/backends/halide/gen/Math.h"

using namespace Halide;
using namespace tfmc::halide;

namespace {

/// Byte `offset` of a block starting at `base` in row `row`, as int32.
struct BlockBytes {
  const ImageParam &weight;
  Expr base, row;
  bool nativeHalf;

  Expr byte(Expr offset) const {
    return cast<int32_t>(weight(base + offset, row));
  }
  Expr signedByte(Expr offset) const {
    return cast<int32_t>(reinterpret<int8_t>(weight(base + offset, row)));
  }
  /// The little-endian f16 at `offset` as a float.
  Expr half(int offset) const {
    Expr bits = cast<uint16_t>(weight(base + offset, row)) |
                (cast<uint16_t>(weight(base + offset + 1, row)) << 8);
    return halfToFloat(bits, nativeHalf);
  }
};

/// The 6-bit scale and min of sub-block `j` (0..7) of a Q4_K / Q5_K block,
/// from the 12 packed bytes at offset 4: sub-blocks 0..3 keep theirs in the
/// low six bits of bytes 0..3 (scales) and 4..7 (mins); 4..7 put their low
/// four bits in the nibbles of bytes 8..11 and their top two bits in the
/// spare top bits of bytes 0..7. Both branches read inside the block.
std::pair<Expr, Expr> kScaleAndMin(const BlockBytes &b, Expr j) {
  Expr low = j < 4;
  Expr scaleLow = b.byte(4 + j) & 63;
  Expr minLow = b.byte(8 + j) & 63;
  Expr packedHigh = b.byte(4 + j + 4);
  Expr scaleHigh = (packedHigh & 0x0f) | ((b.byte(4 + j - 4) >> 6) << 4);
  Expr minHigh = (packedHigh >> 4) | ((b.byte(4 + j) >> 6) << 4);
  return {select(low, scaleLow, scaleHigh), select(low, minLow, minHigh)};
}

} // namespace

Type tfmc::halide::weightStorageType(WeightType type) {
  switch (type) {
  case WeightType::F32:
    return Float(32);
  case WeightType::F16:
  case WeightType::BF16:
    return UInt(16);
  default:
    return UInt(8);
  }
}

int64_t tfmc::halide::weightStorageColumns(WeightType type, int64_t features) {
  if (!isBlockQuantized(type))
    return features;
  return features / weightBlockElements(type) * weightBlockBytes(type);
}

Expr tfmc::halide::dequantize(WeightType type, const ImageParam &weight, Expr k,
                              Expr row, bool nativeHalf) {
  switch (type) {
  case WeightType::F32:
    return weight(k, row);
  case WeightType::F16:
    return halfToFloat(weight(k, row), nativeHalf);
  case WeightType::BF16:
    return bfloat16ToFloat(weight(k, row));
  default:
    break;
  }
  const int elements = static_cast<int>(weightBlockElements(type));
  const int bytes = static_cast<int>(weightBlockBytes(type));
  Expr e = k % elements;
  BlockBytes b{weight, (k / elements) * bytes, row, nativeHalf};
  switch (type) {
  case WeightType::Q8_0:
    // f16 d, 32 int8 q: q * d.
    return strict_float(cast<float>(b.signedByte(2 + e)) * b.half(0));
  case WeightType::Q4_0: {
    // f16 d, 16 bytes: low nibbles are values 0..15, high ones 16..31.
    Expr packed = b.byte(2 + e % 16);
    Expr nibble = select(e < 16, packed & 15, packed >> 4);
    return strict_float(cast<float>(nibble - 8) * b.half(0));
  }
  case WeightType::Q4_K:
  case WeightType::Q5_K: {
    // f16 d, f16 dmin, 12 bytes of scales, [Q5_K: 32 bytes of fifth
    // bits,] 128 bytes of nibbles: each 64 values are two sub-blocks of 32
    // sharing 32 bytes, the low nibbles the first.
    const bool fifthBit = type == WeightType::Q5_K;
    Expr sub = e / 32, lane = e % 32;
    Expr nibbles = fifthBit ? 48 : 16;
    Expr q = (b.byte(nibbles + 32 * (sub / 2) + lane) >> (4 * (sub % 2))) & 15;
    if (fifthBit)
      q += ((b.byte(16 + lane) >> sub) & 1) * 16;
    auto [scale, min] = kScaleAndMin(b, sub);
    // (d * sc) * q - (dmin * m), as ggml rounds it.
    return strict_float((b.half(0) * cast<float>(scale)) * cast<float>(q) -
                        b.half(2) * cast<float>(min));
  }
  case WeightType::Q6_K: {
    // 128 bytes of low nibbles, 64 of high bit pairs, 16 int8 scales (one
    // per 16 values), f16 d last. Value l + 32 i of each half of 128 takes
    // nibble i / 2 of low byte l + 32 (i % 2) and bits 2i of high byte l.
    Expr half = e / 128, within = e % 128;
    Expr i = within / 32, lane = within % 32;
    Expr nibble =
        (b.byte(64 * half + lane + 32 * (i % 2)) >> (4 * (i / 2))) & 15;
    Expr high = (b.byte(128 + 32 * half + lane) >> (2 * i)) & 3;
    Expr q = (nibble | (high << 4)) - 32;
    Expr scale = b.signedByte(192 + e / 16);
    return strict_float((b.half(208) * cast<float>(scale)) * cast<float>(q));
  }
  default:
    break;
  }
  return Expr();
}
