//===- Quantized.cpp - GGUF block-quantized tensors -----------------------===//
#include "compiler/weights/Quantized.h"

#include <cassert>
#include <cstring>

using namespace tfmc::weights;

float tfmc::weights::blockScale(ElementType type, const char *data,
                                uint64_t block) {
  uint16_t bits;
  std::memcpy(&bits, data + block * blockBytes(type), sizeof(bits));
  return halfToFloat(bits);
}

void tfmc::weights::dequantizeBlocks(ElementType type, const char *data,
                                     uint64_t blocks, float *out) {
  assert(isBlockQuantized(type) && "not a block-quantized type");
  const uint32_t size = blockBytes(type);
  for (uint64_t b = 0; b < blocks; ++b, out += 32) {
    float d = blockScale(type, data, b);
    const auto *q = reinterpret_cast<const uint8_t *>(data + b * size + 2);
    if (type == ElementType::Q8_0) {
      for (int j = 0; j < 32; ++j)
        out[j] = static_cast<float>(static_cast<int8_t>(q[j])) * d;
    } else {
      for (int j = 0; j < 16; ++j) {
        out[j] = static_cast<float>((q[j] & 0x0f) - 8) * d;
        out[j + 16] = static_cast<float>((q[j] >> 4) - 8) * d;
      }
    }
  }
}
