//===- KQuants.cpp - GGUF's k-quant super-blocks (Q4_K, Q5_K, Q6_K) -------===//
//
// The arithmetic mirrors ggml's reference dequantizers step by step (the
// order of the f32 products matters for Q6_K, whose `d * sc * q` can
// round: `d * sc` first), so the values are llama.cpp's, bit for bit.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/KQuants.h"

#include "compiler/weights/ElementType.h"

#include <cmath>
#include <cstring>

using namespace tfmc::weights;

namespace {

float halfAt(const uint8_t *bytes) {
  uint16_t bits;
  std::memcpy(&bits, bytes, sizeof(bits));
  return halfToFloat(bits);
}

/// The 6-bit scale and min of sub-block `j` (0..7) from the 12 packed bytes
/// of a Q4_K / Q5_K block: sub-blocks 0..3 keep theirs in the low six bits
/// of bytes 0..3 (scales) and 4..7 (mins); sub-blocks 4..7 put their low
/// four bits in the nibbles of bytes 8..11 and their top two bits in the
/// spare top bits of bytes 0..7.
void scaleAndMin(int j, const uint8_t *packed, uint8_t &scale, uint8_t &min) {
  if (j < 4) {
    scale = packed[j] & 63;
    min = packed[j + 4] & 63;
  } else {
    scale = (packed[j + 4] & 0x0f) | ((packed[j - 4] >> 6) << 4);
    min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
  }
}

/// Q4_K and Q5_K differ only in the fifth bit of each value (`fifthBit`).
/// Each 64 values are two sub-blocks of 32 sharing 32 bytes of nibbles: the
/// low nibbles are the first sub-block, the high the second.
void unpackQ4KOrQ5K(const char *data, bool fifthBit, KQuantSuperBlock &out) {
  const auto *block = reinterpret_cast<const uint8_t *>(data);
  const float d = halfAt(block);
  const float dmin = halfAt(block + 2);
  const uint8_t *packed = block + 4;
  const uint8_t *high = fifthBit ? block + 16 : nullptr;
  const uint8_t *nibbles = block + (fifthBit ? 48 : 16);
  out.subBlock = 32;
  out.d = d;
  out.dmin = dmin;
  int8_t *quant = out.quant;
  for (int sub = 0; sub < 8; ++sub) {
    uint8_t scale, min;
    scaleAndMin(sub, packed, scale, min);
    out.scale[sub] = d * scale;
    out.min[sub] = dmin * min;
    out.subScale[sub] = static_cast<int8_t>(scale);
    out.subMin[sub] = static_cast<int8_t>(min);
    // Sub-block `sub` reads the low (even) or high (odd) nibbles of chunk
    // sub / 2, and bit `sub` of each fifth-bit byte.
    const uint8_t *chunk = nibbles + 32 * (sub / 2);
    int shift = 4 * (sub % 2);
    for (int l = 0; l < 32; ++l) {
      int q = (chunk[l] >> shift) & 0x0f;
      if (high && (high[l] & (1u << sub)))
        q += 16;
      *quant++ = static_cast<int8_t>(q);
    }
  }
}

/// Writes the values of `blocks` super-blocks that `unpack` reads.
template <typename Unpack>
void dequantize(const char *data, uint64_t blocks, uint32_t blockSize,
                Unpack unpack, float *out) {
  KQuantSuperBlock block;
  for (uint64_t b = 0; b < blocks; ++b) {
    unpack(data + b * blockSize, block);
    for (uint32_t e = 0; e < kSuperBlockElements; ++e) {
      int64_t sub = e / block.subBlock;
      *out++ = block.scale[sub] * static_cast<float>(block.quant[e]) -
               block.min[sub];
    }
  }
}

} // namespace

void tfmc::weights::unpackQ4K(const char *block, KQuantSuperBlock &out) {
  unpackQ4KOrQ5K(block, /*fifthBit=*/false, out);
}

void tfmc::weights::unpackQ5K(const char *block, KQuantSuperBlock &out) {
  unpackQ4KOrQ5K(block, /*fifthBit=*/true, out);
}

void tfmc::weights::unpackQ6K(const char *data, KQuantSuperBlock &out) {
  const auto *block = reinterpret_cast<const uint8_t *>(data);
  const uint8_t *low = block;        // 128 bytes: 4 low bits, two per byte
  const uint8_t *high = block + 128; // 64 bytes: 2 high bits, four per byte
  const auto *scales = reinterpret_cast<const int8_t *>(block + 192);
  const float d = halfAt(block + 208);
  out.subBlock = 16;
  out.d = d;
  out.dmin = 0.0f;
  for (int sub = 0; sub < 16; ++sub) {
    out.scale[sub] = d * static_cast<float>(scales[sub]);
    out.min[sub] = 0.0f;
    out.subScale[sub] = scales[sub];
    out.subMin[sub] = 0;
  }
  // Each half of 128 values takes 64 low bytes and 32 high bytes; value
  // l + 32 * i of the half takes nibble (i / 2) of low byte l + 32 * (i % 2)
  // and bits 2i..2i+1 of high byte l.
  for (int half = 0; half < 2; ++half, low += 64, high += 32)
    for (int i = 0; i < 4; ++i)
      for (int l = 0; l < 32; ++l) {
        int nibble = (low[l + 32 * (i % 2)] >> (4 * (i / 2))) & 0x0f;
        int q = (nibble | (((high[l] >> (2 * i)) & 3) << 4)) - 32;
        out.quant[128 * half + 32 * i + l] = static_cast<int8_t>(q);
      }
}

void tfmc::weights::dequantizeQ4K(const char *data, uint64_t blocks,
                                  float *out) {
  dequantize(data, blocks, kQ4KBlockBytes, unpackQ4K, out);
}

void tfmc::weights::dequantizeQ5K(const char *data, uint64_t blocks,
                                  float *out) {
  dequantize(data, blocks, kQ5KBlockBytes, unpackQ5K, out);
}

void tfmc::weights::dequantizeQ6K(const char *data, uint64_t blocks,
                                  float *out) {
  dequantize(data, blocks, kQ6KBlockBytes, unpackQ6K, out);
}

bool tfmc::weights::q4KOrQ5KScalesFinite(const char *block) {
  const auto *bytes = reinterpret_cast<const uint8_t *>(block);
  return std::isfinite(halfAt(bytes)) && std::isfinite(halfAt(bytes + 2));
}

bool tfmc::weights::q6KScaleFinite(const char *block) {
  return std::isfinite(halfAt(reinterpret_cast<const uint8_t *>(block) + 208));
}
