//===- ByteLevel.cpp - GPT-2's byte <-> visible-character map -------------===//
#include "runtime/ByteLevel.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace tfm::rt {

namespace {

struct ByteMap {
  /// The image of the map lies below U+0144 (256 + the 68 remapped bytes).
  static constexpr char32_t kImageEnd = 256 + 68;
  char32_t toChar[256];
  int16_t toByte[kImageEnd];
  ByteMap() {
    std::fill(std::begin(toByte), std::end(toByte), int16_t(-1));
    int next = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
                       (b >= 0xAE && b <= 0xFF);
      toChar[b] = printable ? static_cast<char32_t>(b)
                            : static_cast<char32_t>(256 + next++);
      toByte[toChar[b]] = static_cast<int16_t>(b);
    }
  }
};

const ByteMap &byteMap() {
  static const ByteMap map;
  return map;
}

} // namespace

char32_t byteLevelChar(unsigned char byte) { return byteMap().toChar[byte]; }

int byteLevelByte(char32_t cp) {
  return cp < ByteMap::kImageEnd ? byteMap().toByte[cp] : -1;
}

std::u32string toByteLevel(std::string_view bytes) {
  std::u32string out;
  out.reserve(bytes.size());
  for (unsigned char byte : bytes)
    out += byteLevelChar(byte);
  return out;
}

} // namespace tfm::rt
