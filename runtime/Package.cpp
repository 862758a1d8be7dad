//===- Package.cpp - Map and check the weights + metadata package ---------===//
//
// The layout is documented in Package.h; PackageWriter.cpp writes it. The
// reader trusts nothing in the
// trailer: every offset and size is checked against the file size before a
// pointer into the mapping is formed, so a truncated or foreign file yields an
// error message instead of a SIGBUS or an out-of-bounds read.
//
//===----------------------------------------------------------------------===//

#include "runtime/Package.h"

#include "runtime/PackageFormat.h"
#include "runtime/RandomWeights.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace tfm::rt {

using namespace package_format;

namespace {

uint64_t getLE(const uint8_t *p, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= static_cast<uint64_t>(p[i]) << (8 * i);
  return value;
}

/// Parses the metadata records in [data, data + size). Returns false with a
/// description of the first framing error.
bool decodeMetadata(const uint8_t *data, uint64_t size, PackageMetadata &out,
                    std::string &what) {
  uint64_t at = 0;
  while (at < size) {
    if (size - at < 4) {
      what = "metadata record at byte " + std::to_string(at) +
             " is cut off inside its key length";
      return false;
    }
    uint64_t keyLength = getLE(data + at, 4);
    at += 4;
    if (size - at < keyLength || size - at - keyLength < 8) {
      what = "metadata key at byte " + std::to_string(at) + " (" +
             std::to_string(keyLength) + " bytes) overruns the section";
      return false;
    }
    std::string key(reinterpret_cast<const char *>(data + at), keyLength);
    at += keyLength;
    uint64_t valueLength = getLE(data + at, 8);
    at += 8;
    if (size - at < valueLength) {
      what = "metadata value of '" + key + "' (" + std::to_string(valueLength) +
             " bytes) overruns the section";
      return false;
    }
    out[key] =
        std::string(reinterpret_cast<const char *>(data + at), valueLength);
    at += valueLength;
  }
  return true;
}

} // namespace

const char kRandomSeedKey[] = "weights.random_seed";
const char kRandomBytesKey[] = "weights.random_bytes";

Package::~Package() { close(); }

void Package::close() {
  if (mapping_)
    ::munmap(mapping_, mappingBytes_);
  if (filled_)
    ::munmap(filled_, weightsBytes_);
  mapping_ = filled_ = nullptr;
  weights_ = nullptr;
  weightsBytes_ = weightsHash_ = mappingBytes_ = 0;
  randomSeed_.reset();
  metadata_.clear();
  checksum_.clear();
}

bool Package::open(const std::string &path, std::string &error) {
  close();
  std::string name = quoted(path);

  // Opening a FIFO would block until a writer comes: check the path first.
  struct stat pathStat;
  if (::stat(path.c_str(), &pathStat) == 0 && !S_ISREG(pathStat.st_mode)) {
    error = name + ": cannot read: not a regular file";
    return false;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = name + ": cannot open: " + errnoText();
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = name + ": cannot stat: " + errnoText();
    ::close(fd);
    return false;
  }
  // TFM_PACKAGE may name anything; only a regular file has a size to map.
  if (!S_ISREG(st.st_mode)) {
    error = name + ": cannot read: not a regular file";
    ::close(fd);
    return false;
  }
  uint64_t fileBytes = static_cast<uint64_t>(st.st_size);
  if (fileBytes < kTrailerBytes) {
    error = name + ": no tfmc package found (file is " +
            std::to_string(fileBytes) + " bytes, too small for the " +
            "TFMPKG01 trailer)";
    ::close(fd);
    return false;
  }
  // MAP_PRIVATE + PROT_READ: the weights are shared with the page cache and
  // never copied, and nothing we do can modify the file.
  void *mapping = ::mmap(nullptr, fileBytes, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED) {
    error = name + ": cannot mmap: " + errnoText();
    return false;
  }
  mapping_ = mapping;
  mappingBytes_ = fileBytes;
  if (parse(static_cast<const uint8_t *>(mapping), fileBytes, path, error))
    return true;
  ::munmap(mapping_, mappingBytes_);
  mapping_ = nullptr;
  mappingBytes_ = 0;
  return false;
}

bool Package::openMemory(const uint8_t *data, uint64_t bytes,
                         const std::string &name, std::string &error) {
  close();
  if (!data || bytes < kTrailerBytes) {
    error = quoted(name) + ": no tfmc package found (" + std::to_string(bytes) +
            " bytes, too small for the TFMPKG01 trailer)";
    return false;
  }
  if (!parse(data, bytes, name, error))
    return false;
  // The blob's offset is 4096-aligned within the package; the generated
  // code's vector loads need the blob itself aligned in memory.
  if (reinterpret_cast<uintptr_t>(weights_) % kWeightsAlign != 0) {
    error = quoted(name) + ": the weights blob is not 4096-byte aligned in "
                           "memory (the package must start on a page)";
    weights_ = nullptr;
    metadata_.clear();
    return false;
  }
  return true;
}

bool Package::parse(const uint8_t *base, uint64_t fileBytes,
                    const std::string &path, std::string &error) {
  std::string name = quoted(path);
  const uint8_t *trailer = base + fileBytes - kTrailerBytes;

  auto fail = [&](const std::string &what) {
    error = name + ": " + what;
    metadata_.clear();
    checksum_.clear();
    return false;
  };
  if (std::memcmp(trailer, kMagic, sizeof(kMagic)) != 0)
    return fail("no tfmc package found (missing TFMPKG01 trailer)");

  uint64_t weightsOffset = getLE(trailer + 8, 8);
  uint64_t weightsBytes = getLE(trailer + 16, 8);
  uint64_t metaOffset = getLE(trailer + 24, 8);
  uint64_t metaBytes = getLE(trailer + 32, 8);
  uint64_t weightsHash = getLE(trailer + 40, 8);
  uint64_t payloadEnd = fileBytes - kTrailerBytes;

  if (getLE(trailer + 48, 8) != 0 || getLE(trailer + 56, 8) != 0)
    return fail("package trailer has non-zero reserved fields (written by a "
                "newer tfmc?)");
  if (weightsOffset % kWeightsAlign != 0)
    return fail("weights blob offset " + std::to_string(weightsOffset) +
                " is not 4096-byte aligned");
  // Subtractions instead of additions keep corrupt 64-bit values from
  // wrapping around.
  if (weightsOffset > payloadEnd || weightsBytes > payloadEnd - weightsOffset)
    return fail("weights blob truncated: expects " +
                std::to_string(weightsBytes) + " bytes at offset " +
                std::to_string(weightsOffset) + " but the file has " +
                std::to_string(fileBytes));
  if (metaOffset % kMetaAlign != 0)
    return fail("metadata offset " + std::to_string(metaOffset) +
                " is not 8-byte aligned");
  if (metaOffset < weightsOffset + weightsBytes)
    return fail("metadata offset " + std::to_string(metaOffset) +
                " overlaps the weights blob ending at " +
                std::to_string(weightsOffset + weightsBytes));
  if (metaOffset > payloadEnd || metaBytes != payloadEnd - metaOffset)
    return fail("metadata truncated: expects " + std::to_string(metaBytes) +
                " bytes at offset " + std::to_string(metaOffset) +
                " ending at the trailer (offset " + std::to_string(payloadEnd) +
                ") but the file has " + std::to_string(fileBytes));

  std::string what;
  if (!decodeMetadata(base + metaOffset, metaBytes, metadata_, what))
    return fail(what);
  // The checksum belongs to the package, not to the model's metadata.
  auto checksum = metadata_.find(kWeightsChecksumKey);
  if (checksum != metadata_.end()) {
    checksum_ = checksum->second;
    metadata_.erase(checksum);
  }

  // A blob filled at load: the trailer's is empty, the metadata sizes it.
  auto seedText = metadata_.find(kRandomSeedKey);
  auto bytesText = metadata_.find(kRandomBytesKey);
  bool hasSeed = seedText != metadata_.end();
  if (hasSeed != (bytesText != metadata_.end()))
    return fail(std::string("metadata has '") +
                (hasSeed ? kRandomSeedKey : kRandomBytesKey) + "' without '" +
                (hasSeed ? kRandomBytesKey : kRandomSeedKey) + "'");
  std::optional<uint64_t> randomSeed;
  if (hasSeed) {
    uint64_t seed = 0, randomBytes = 0;
    for (auto [text, value] :
         {std::pair{seedText, &seed}, std::pair{bytesText, &randomBytes}}) {
      const std::string &digits = text->second;
      auto [end, status] =
          std::from_chars(digits.data(), digits.data() + digits.size(), *value);
      if (digits.empty() || status != std::errc() ||
          end != digits.data() + digits.size())
        return fail("metadata '" + text->first + "' is '" + digits +
                    "', not a decimal number");
    }
    if (weightsBytes != 0)
      return fail("the weights are random (metadata '" +
                  std::string(kRandomSeedKey) + "') but the package stores " +
                  std::to_string(weightsBytes) + " bytes of them");
    metadata_.erase(seedText);
    metadata_.erase(bytesText);
    randomSeed = seed;
    weightsBytes = randomBytes;
  }
  // Taken only now that the package is accepted.
  path_ = path;
  weights_ = randomSeed ? nullptr : base + weightsOffset;
  weightsBytes_ = weightsBytes;
  weightsHash_ = weightsHash;
  randomSeed_ = randomSeed;
  return true;
}

const uint8_t *Package::weights() const {
  if (!randomSeed_)
    return weights_;
  std::lock_guard<std::mutex> lock(fillMutex_);
  if (!filled_ && weightsBytes_ != 0) {
    // Anonymous pages: page-aligned, as the generated code needs, and
    // given back to the system at close().
    void *pages = ::mmap(nullptr, weightsBytes_, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED)
      return nullptr;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    fillRandomWeights(static_cast<uint8_t *>(pages), weightsBytes_,
                      *randomSeed_, threads);
    filled_ = pages;
  }
  return static_cast<const uint8_t *>(filled_);
}

bool Package::verifyWeights(std::string &error) const {
  if (randomSeed_) {
    error = quoted(path_) + ": the weights are random (compiled with " +
            "--random-weights, seed " + std::to_string(*randomSeed_) +
            "): there are no model weights to verify";
    return false;
  }
  const std::string &recorded = checksum_;
  uint64_t expected = 0;
  if (recorded.empty()) {
    error = quoted(path_) +
            ": the package has no weights checksum (metadata '" +
            kWeightsChecksumKey + "'; written by an older tfmc?)";
    return false;
  }
  if (!parseChecksum(recorded, expected)) {
    error = quoted(path_) + ": metadata '" + kWeightsChecksumKey + "' is '" +
            recorded + "', not 16 hex digits";
    return false;
  }
  uint64_t actual = weightsChecksum(weights_, weightsBytes_);
  if (actual != expected) {
    error = quoted(path_) + ": the weights are corrupt: their checksum is " +
            formatChecksum(actual) + " but the package was written with " +
            formatChecksum(expected);
    return false;
  }
  return true;
}

std::string_view Package::get(const std::string &key) const {
  auto it = metadata_.find(key);
  if (it == metadata_.end())
    return {};
  return it->second;
}

} // namespace tfm::rt
