//===- Quantized.cpp - GGUF block-quantized tensors -----------------------===//
#include "compiler/weights/Quantized.h"

#include "compiler/weights/KQuants.h"

#include <cassert>
#include <cmath>
#include <cstring>

using namespace tfmc::weights;

float tfmc::weights::blockScale(ElementType type, const char *data,
                                uint64_t block) {
  assert((type == ElementType::Q8_0 || type == ElementType::Q4_0) &&
         "one leading f16 scale per block");
  uint16_t bits;
  std::memcpy(&bits, data + block * blockBytes(type), sizeof(bits));
  return halfToFloat(bits);
}

bool tfmc::weights::blockScalesFinite(ElementType type, const char *data,
                                      uint64_t block) {
  const char *start = data + block * blockBytes(type);
  switch (type) {
  case ElementType::Q8_0:
  case ElementType::Q4_0:
    return std::isfinite(blockScale(type, data, block));
  case ElementType::Q4_K:
  case ElementType::Q5_K:
    return q4KOrQ5KScalesFinite(start);
  case ElementType::Q6_K:
    return q6KScaleFinite(start);
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16:
    break;
  }
  assert(false && "not a block-quantized type");
  return true;
}

void tfmc::weights::dequantizeBlocks(ElementType type, const char *data,
                                     uint64_t blocks, float *out) {
  switch (type) {
  case ElementType::Q4_K:
    return dequantizeQ4K(data, blocks, out);
  case ElementType::Q5_K:
    return dequantizeQ5K(data, blocks, out);
  case ElementType::Q6_K:
    return dequantizeQ6K(data, blocks, out);
  case ElementType::Q8_0:
  case ElementType::Q4_0:
    break;
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16:
    assert(false && "not a block-quantized type");
    return;
  }
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
