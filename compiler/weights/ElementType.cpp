//===- ElementType.cpp - Element types a weight can be stored in ----------===//
#include "compiler/weights/ElementType.h"

#include "compiler/weights/KQuants.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tfmc::weights;

// stringifyElementType, symbolizeElementType.
#include "compiler/weights/ElementType.cpp.inc"

bool tfmc::weights::isConversionTarget(ElementType type) {
  return !isBlockQuantized(type) || type == ElementType::Q8_0 ||
         type == ElementType::Q4_0;
}

std::string tfmc::weights::conversionTargetNames() {
  llvm::SmallVector<llvm::StringRef> names;
  for (unsigned value = 0; value <= getMaxEnumValForElementType(); ++value)
    if (std::optional<ElementType> type = symbolizeElementType(value);
        type && isConversionTarget(*type))
      names.push_back(stringifyElementType(*type));
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0                  ? ""
             : i + 1 == names.size() ? " or "
                                     : ", ") +
            names[i].str();
  return text;
}

bool tfmc::weights::isBlockQuantized(ElementType type) {
  return blockElements(type) > 1;
}

uint32_t tfmc::weights::blockElements(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16:
    return 1;
  case ElementType::Q8_0:
  case ElementType::Q4_0:
    return 32;
  case ElementType::Q4_K:
  case ElementType::Q5_K:
  case ElementType::Q6_K:
    return kSuperBlockElements;
  }
  return 1;
}

uint32_t tfmc::weights::blockBytes(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::Q8_0:
    return 2 + 32;
  case ElementType::Q4_0:
    return 2 + 16;
  case ElementType::Q4_K:
    return kQ4KBlockBytes;
  case ElementType::Q5_K:
    return kQ5KBlockBytes;
  case ElementType::Q6_K:
    return kQ6KBlockBytes;
  }
  return 1;
}

uint64_t tfmc::weights::storageBytes(ElementType type, uint64_t count) {
  uint64_t blocks = count / blockElements(type);
  uint64_t size = blockBytes(type);
  if (blocks > std::numeric_limits<uint64_t>::max() / size)
    return std::numeric_limits<uint64_t>::max();
  return blocks * size;
}

float tfmc::weights::halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: value = mantissa * 2^-24, exact in f32.
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t out;
  if (exponent == 0x1f)
    out = sign | 0x7f800000u | (mantissa << 13); // inf / NaN keep payload
  else
    out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &out, sizeof(value));
  return value;
}

float tfmc::weights::bfloat16ToFloat(uint16_t bits) {
  uint32_t out = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &out, sizeof(value));
  return value;
}

uint16_t tfmc::weights::floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: keep the top payload bits, quiet
    return sign | 0x7e00u | static_cast<uint16_t>((magnitude >> 13) & 0x1ffu);
  if (magnitude >= 0x477ff000u) // rounds to or above 2^16: infinity
    return sign | 0x7c00u;
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal, a multiple of
    // 2^-24. Scaling by 2^24 is exact, rint rounds half to even.
    float scaled = std::ldexp(std::fabs(value), 24);
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to
  // nearest even; a carry into the exponent is the correct result.
  uint32_t rebased = magnitude - (112u << 23);
  uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

uint16_t tfmc::weights::floatToBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}
