//===- PackageChecksum.h - Content checksum of the weights blob -*- C++ -*-===//
//
// The package's weights hash (tfm_model.weights_hash) fingerprints the layout
// only: flipped weight bits leave it unchanged. This checksum covers every
// byte of the blob. The package writer computes it while the blob streams
// through and stores it as the metadata record "weights.checksum" (16 hex
// digits); `--verify-weights` recomputes it over the mapped blob.
//
// The hash is xxHash64-shaped (four independent lanes over 8-byte words, so a
// core hashes several GB/s) but not xxHash64 itself: only this file reads
// and writes it, and the value depends on nothing but the bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_PACKAGECHECKSUM_H
#define TFMC_RUNTIME_PACKAGECHECKSUM_H

#include <cstdint>
#include <string>

namespace tfm::rt {

/// The metadata key of the weights checksum.
inline constexpr const char *kWeightsChecksumKey = "weights.checksum";

/// A 64-bit checksum fed in pieces of any size; the result depends only on
/// the concatenated bytes, not on how they were split.
class WeightsChecksum {
public:
  WeightsChecksum();
  void update(const void *data, uint64_t size);
  /// The checksum of everything fed so far.
  uint64_t value() const;

private:
  void stripe(const unsigned char *data);

  uint64_t lanes_[4];
  unsigned char pending_[32];
  uint64_t pendingBytes_ = 0;
  uint64_t total_ = 0;
};

/// The checksum of `size` bytes at `data`, in one call.
uint64_t weightsChecksum(const void *data, uint64_t size);

/// 16 lower-case hex digits; parseChecksum() reads them back (false when
/// `text` is anything else).
std::string formatChecksum(uint64_t checksum);
bool parseChecksum(const std::string &text, uint64_t &checksum);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_PACKAGECHECKSUM_H
