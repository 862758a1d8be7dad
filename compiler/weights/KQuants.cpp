//===- KQuants.cpp - GGUF's k-quant super-blocks (Q4_K, Q5_K, Q6_K) -------===//
//
// The arithmetic mirrors ggml's reference dequantizers step by step (the
// order of the f32 products matters for Q6_K, whose `d * sc * q` can
// round), so the values are llama.cpp's, bit for bit.
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

/// Q4_K and Q5_K differ only in the fifth bit of each value (`high`, null
/// for Q4_K). Each 64 values are two sub-blocks of 32 sharing 32 bytes of
/// nibbles: the low nibbles are the first sub-block, the high the second.
void dequantizeQ4KOrQ5K(const char *data, uint64_t blocks, uint32_t blockSize,
                        bool fifthBit, float *out) {
  for (uint64_t b = 0; b < blocks; ++b) {
    const auto *block = reinterpret_cast<const uint8_t *>(data) + b * blockSize;
    const float d = halfAt(block);
    const float dmin = halfAt(block + 2);
    const uint8_t *packed = block + 4;
    const uint8_t *high = fifthBit ? block + 16 : nullptr;
    const uint8_t *nibbles = block + (fifthBit ? 48 : 16);
    for (int chunk = 0; chunk < 4; ++chunk, nibbles += 32) {
      uint8_t scale, min;
      scaleAndMin(2 * chunk, packed, scale, min);
      const float d1 = d * scale, m1 = dmin * min;
      scaleAndMin(2 * chunk + 1, packed, scale, min);
      const float d2 = d * scale, m2 = dmin * min;
      const uint8_t lowBit = 1u << (2 * chunk), highBit = 2u << (2 * chunk);
      for (int l = 0; l < 32; ++l) {
        int q = nibbles[l] & 0x0f;
        if (high && (high[l] & lowBit))
          q += 16;
        *out++ = d1 * static_cast<float>(q) - m1;
      }
      for (int l = 0; l < 32; ++l) {
        int q = nibbles[l] >> 4;
        if (high && (high[l] & highBit))
          q += 16;
        *out++ = d2 * static_cast<float>(q) - m2;
      }
    }
  }
}

} // namespace

void tfmc::weights::dequantizeQ4K(const char *data, uint64_t blocks,
                                  float *out) {
  dequantizeQ4KOrQ5K(data, blocks, kQ4KBlockBytes, /*fifthBit=*/false, out);
}

void tfmc::weights::dequantizeQ5K(const char *data, uint64_t blocks,
                                  float *out) {
  dequantizeQ4KOrQ5K(data, blocks, kQ5KBlockBytes, /*fifthBit=*/true, out);
}

void tfmc::weights::dequantizeQ6K(const char *data, uint64_t blocks,
                                  float *out) {
  for (uint64_t b = 0; b < blocks; ++b) {
    const auto *block =
        reinterpret_cast<const uint8_t *>(data) + b * kQ6KBlockBytes;
    const uint8_t *low = block;       // 128 bytes: 4 low bits, two per byte
    const uint8_t *high = block + 128; // 64 bytes: 2 high bits, four per byte
    const auto *scales = reinterpret_cast<const int8_t *>(block + 192);
    const float d = halfAt(block + 208);
    // Each half of 128 values takes 64 low bytes, 32 high bytes and 8
    // scales (one per 16 values); value l + 32 * i of the half takes
    // nibble (i / 2) of low byte l + 32 * (i % 2) and bits 2i..2i+1 of
    // high byte l.
    for (int half = 0; half < 2; ++half, out += 128) {
      for (int l = 0; l < 32; ++l) {
        int sub = l / 16;
        for (int i = 0; i < 4; ++i) {
          int nibble = (low[l + 32 * (i % 2)] >> (4 * (i / 2))) & 0x0f;
          int q = (nibble | (((high[l] >> (2 * i)) & 3) << 4)) - 32;
          const float scale = d * static_cast<float>(scales[sub + 2 * i]);
          out[l + 32 * i] = scale * static_cast<float>(q);
        }
      }
      low += 64;
      high += 32;
      scales += 8;
    }
  }
}

bool tfmc::weights::q4KOrQ5KScalesFinite(const char *block) {
  const auto *bytes = reinterpret_cast<const uint8_t *>(block);
  return std::isfinite(halfAt(bytes)) && std::isfinite(halfAt(bytes + 2));
}

bool tfmc::weights::q6KScaleFinite(const char *block) {
  return std::isfinite(
      halfAt(reinterpret_cast<const uint8_t *>(block) + 208));
}
