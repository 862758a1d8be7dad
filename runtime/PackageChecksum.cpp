//===- PackageChecksum.cpp - Content checksum of the weights blob ---------===//
#include "runtime/PackageChecksum.h"

#include <cstring>

namespace tfm::rt {

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kStripeBytes = 32;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/// A little-endian word whatever the host, so a package verifies anywhere.
uint64_t load64(const unsigned char *p) {
  uint64_t word = 0;
  for (int i = 0; i < 8; ++i)
    word |= static_cast<uint64_t>(p[i]) << (8 * i);
  return word;
}

uint64_t round(uint64_t acc, uint64_t word) {
  return rotl(acc + word * kPrime2, 31) * kPrime1;
}

} // namespace

WeightsChecksum::WeightsChecksum()
    : lanes_{kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1} {}

void WeightsChecksum::stripe(const unsigned char *data) {
  for (int lane = 0; lane < 4; ++lane)
    lanes_[lane] = round(lanes_[lane], load64(data + 8 * lane));
}

void WeightsChecksum::update(const void *data, uint64_t size) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  total_ += size;
  if (pendingBytes_ > 0) {
    uint64_t fill = kStripeBytes - pendingBytes_;
    if (fill > size)
      fill = size;
    std::memcpy(pending_ + pendingBytes_, p, fill);
    pendingBytes_ += fill;
    p += fill;
    size -= fill;
    if (pendingBytes_ < kStripeBytes)
      return;
    stripe(pending_);
    pendingBytes_ = 0;
  }
  for (; size >= kStripeBytes; p += kStripeBytes, size -= kStripeBytes)
    stripe(p);
  std::memcpy(pending_, p, size);
  pendingBytes_ = size;
}

uint64_t WeightsChecksum::value() const {
  uint64_t h = rotl(lanes_[0], 1) + rotl(lanes_[1], 7) + rotl(lanes_[2], 12) +
               rotl(lanes_[3], 18);
  h += total_;
  uint64_t at = 0;
  for (; at + 8 <= pendingBytes_; at += 8)
    h = rotl(h ^ round(0, load64(pending_ + at)), 27) * kPrime1 + kPrime4;
  for (; at < pendingBytes_; ++at)
    h = rotl(h ^ (pending_[at] * 0x27D4EB2F165667C5ull), 11) * kPrime1;
  // Avalanche, so that one flipped bit changes about half of the result.
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

uint64_t weightsChecksum(const void *data, uint64_t size) {
  WeightsChecksum checksum;
  checksum.update(data, size);
  return checksum.value();
}

std::string formatChecksum(uint64_t checksum) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, checksum >>= 4)
    text[i] = kDigits[checksum & 0xf];
  return text;
}

bool parseChecksum(const std::string &text, uint64_t &checksum) {
  if (text.size() != 16)
    return false;
  checksum = 0;
  for (char c : text) {
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                       : -1;
    if (digit < 0)
      return false;
    checksum = checksum << 4 | static_cast<uint64_t>(digit);
  }
  return true;
}

} // namespace tfm::rt
