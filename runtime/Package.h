//===- Package.h - The data a compiled model carries: weights + metadata --===//
//
// A compiled executable is the linked program followed by a *package*: the
// weights blob the generated code reads (mmap'd, never copied) and a metadata
// section (tokenizer, special tokens, description). The same bytes can also
// live in a stand-alone file (for the static-library use), so the reader takes
// a path and never assumes it is reading itself.
//
// On-disk layout (all integers little-endian):
//
//   [anything, e.g. the ELF executable]
//   [zero padding up to a 4096-byte boundary]
//   weights blob            (weightsBytes bytes, starts 4096-aligned)
//   [zero padding up to an 8-byte boundary]
//   metadata section        (metaBytes bytes, see below)
//   trailer                 (64 bytes, the last 64 bytes of the file):
//     char     magic[8]     = "TFMPKG01"
//     uint64_t weightsOffset   (absolute file offset of the blob)
//     uint64_t weightsBytes
//     uint64_t metaOffset      (absolute file offset of the metadata)
//     uint64_t metaBytes
//     uint64_t weightsHash     (must equal tfm_model.weights_hash)
//     uint64_t reserved[2]     = 0
//
//   metadata section: a sequence of records until metaBytes is consumed:
//     uint32_t keyLength, key bytes, uint64_t valueLength, value bytes
//   Keys used today (all values are raw bytes; integers as decimal text):
//     "tokenizer.kind"  "spm" | "gpt2-bpe"  (see Tokenizer.h)
//     "tokenizer.data"  the tokenizer blob of that kind
//     "token.bos", "token.eos"   decimal ids ("-1" when the model has none)
//     "model.description"        human-readable, printed by --info
//     "model.note"               optional; printed to stderr before generating
//     "weights.checksum"         16 hex digits: the content checksum of the
//                                weights blob (PackageChecksum.h), written
//                                by PackageWriter, checked by verifyWeights()
//     "weights.random_seed", "weights.random_bytes"
//                                decimal; a package whose blob is filled
//                                from the seed when first read
//                                (RandomWeights.h) instead of stored: the
//                                trailer's blob is empty, and there is no
//                                checksum
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_PACKAGE_H
#define TFMC_RUNTIME_PACKAGE_H

#include "runtime/PackageChecksum.h"
#include "runtime/StagedFileWriter.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tfm::rt {

/// Metadata records, keyed by name.
using PackageMetadata = std::map<std::string, std::string>;

/// The package's own keys of a blob filled at load (not model metadata:
/// Package::metadata() leaves them out).
extern const char kRandomSeedKey[];
extern const char kRandomBytesKey[];

/// Appends a package (weights + metadata + trailer) to the file at `path`
/// (creating it if absent). Returns false and sets `error` on I/O failure.
bool appendPackage(const std::string &path, std::string_view weights,
                   uint64_t weightsHash, const PackageMetadata &metadata,
                   std::string &error);

/// Appends a package whose weights blob arrives in pieces, so that the
/// writer never holds the whole blob (appendPackage writes through it). Every
/// call returns false and sets `error` on failure; a writer destroyed before
/// finish() closes the file, leaving a file without a package trailer.
class PackageWriter {
public:
  PackageWriter() = default;
  PackageWriter(const PackageWriter &) = delete;
  PackageWriter &operator=(const PackageWriter &) = delete;
  ~PackageWriter();

  /// Opens `path` for appending (creating it if absent) and pads it to the
  /// blob's alignment; the blob will be `weightsBytes` long.
  bool begin(const std::string &path, uint64_t weightsBytes,
             std::string &error);
  /// Appends the next `size` bytes of the blob.
  bool write(const void *data, uint64_t size, std::string &error);
  /// Appends `count` zero bytes to the blob.
  bool writeZeros(uint64_t count, std::string &error);
  /// Blob bytes written so far.
  uint64_t written() const { return written_; }
  /// Stores no blob: the reader fills the `weightsBytes` bytes begin()
  /// announced from `seed` (RandomWeights.h). Call before finish(), with
  /// nothing written.
  void fillAtLoad(uint64_t seed) { randomSeed_ = seed; }
  /// Checks that the whole blob was written, then appends the metadata (with
  /// the blob's "weights.checksum" added) and the trailer and closes the
  /// file.
  bool finish(uint64_t weightsHash, const PackageMetadata &metadata,
              std::string &error);

private:
  bool fail(const char *what, std::string &error);

  /// The file, appended to: the padding before the blob, the metadata and
  /// the trailer after it.
  int fd_ = -1;
  std::string path_;
  uint64_t weightsOffset_ = 0;
  uint64_t weightsBytes_ = 0;
  uint64_t written_ = 0;
  std::optional<uint64_t> randomSeed_;
  /// Of the blob's bytes, fed on blob_'s background thread.
  WeightsChecksum checksum_;
  /// The blob, written from weightsOffset_ on. Last, so that it is
  /// destroyed first: it waits for its background write, which feeds
  /// checksum_.
  StagedFileWriter blob_;
};

/// A package opened read-only; the weights stay mmap'd for its lifetime.
class Package {
public:
  Package() = default;
  Package(const Package &) = delete;
  Package &operator=(const Package &) = delete;
  ~Package();

  /// Maps the package at the end of `path`. Validates the trailer, offsets,
  /// sizes and metadata framing; on failure returns false with an `error`
  /// that names the file and what is wrong with it.
  bool open(const std::string &path, std::string &error);

  /// Reads the package held in memory at [data, data + bytes) (a package
  /// linked into a program), which must outlive this object; `name` names it
  /// in errors. The same checks as open(), and the weights blob must be
  /// 4096-byte aligned in memory.
  bool openMemory(const uint8_t *data, uint64_t bytes, const std::string &name,
                  std::string &error);

  /// The weights blob. A package written with random weights fills it from
  /// its seed on the first call (nullptr when the memory cannot be had).
  const uint8_t *weights() const;
  uint64_t weightsBytes() const { return weightsBytes_; }
  /// The seed of a package whose weights are filled at load (tfmc compile
  /// --random-weights); none for stored weights.
  std::optional<uint64_t> randomSeed() const { return randomSeed_; }
  uint64_t weightsHash() const { return weightsHash_; }
  /// The model's records ("weights.checksum" is the package's own and is
  /// not among them).
  const PackageMetadata &metadata() const { return metadata_; }
  /// The content checksum of the weights blob written at compile time (16
  /// hex digits, unchecked; "" when the package has none): what
  /// verifyWeights() compares with, without reading the blob.
  const std::string &recordedChecksum() const { return checksum_; }
  /// Returns the value of `key`, or an empty view when absent.
  std::string_view get(const std::string &key) const;
  /// Recomputes the weights checksum (reading every byte of the blob) and
  /// compares it with the one written at compile time; false with an
  /// `error` naming the file when they differ or none was written.
  bool verifyWeights(std::string &error) const;

private:
  /// Unmaps what the package mapped or filled and forgets its contents.
  void close();
  /// Validates the package whose bytes (file start to trailer end) are
  /// [base, base + bytes) and takes its weights and metadata from there.
  bool parse(const uint8_t *base, uint64_t bytes, const std::string &path,
             std::string &error);

  void *mapping_ = nullptr;
  uint64_t mappingBytes_ = 0;
  /// The blob a random-weights package fills on its first weights() call.
  mutable void *filled_ = nullptr;
  mutable std::mutex fillMutex_;
  std::optional<uint64_t> randomSeed_;
  std::string path_;
  std::string checksum_; ///< "weights.checksum", kept out of metadata_
  const uint8_t *weights_ = nullptr;
  uint64_t weightsBytes_ = 0;
  uint64_t weightsHash_ = 0;
  PackageMetadata metadata_;
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_PACKAGE_H
