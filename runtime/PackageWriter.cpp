//===- PackageWriter.cpp - Write the weights + metadata package -----------===//
//
// The layout is documented in Package.h. Only the compiler and the tools
// write packages: this file stays out of the programs that read them.
//
//===----------------------------------------------------------------------===//

#include "runtime/Package.h"

#include "runtime/PackageFormat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tfm::rt {

using namespace package_format;

namespace {

/// Integers are stored little-endian whatever the host is.
void putLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

/// Writes all of `data`, retrying short writes and EINTR.
bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

bool writeZeros(int fd, uint64_t count) {
  static const char zeros[4096] = {};
  while (count > 0) {
    size_t chunk = count < sizeof(zeros) ? count : sizeof(zeros);
    if (!writeAll(fd, zeros, chunk))
      return false;
    count -= chunk;
  }
  return true;
}

std::string encodeMetadata(const PackageMetadata &metadata) {
  std::string out;
  for (const auto &[key, value] : metadata) {
    putLE(out, key.size(), 4);
    out += key;
    putLE(out, value.size(), 8);
    out += value;
  }
  return out;
}

} // namespace

bool appendPackage(const std::string &path, std::string_view weights,
                   uint64_t weightsHash, const PackageMetadata &metadata,
                   std::string &error) {
  PackageWriter writer;
  return writer.begin(path, weights.size(), error) &&
         writer.write(weights.data(), weights.size(), error) &&
         writer.finish(weightsHash, metadata, error);
}

PackageWriter::~PackageWriter() {
  if (fd_ >= 0)
    ::close(fd_);
}

bool PackageWriter::fail(const char *what, std::string &error) {
  error = quoted(path_) + ": " + what + ": " + errnoText();
  ::close(fd_);
  fd_ = -1;
  return false;
}

bool PackageWriter::begin(const std::string &path, uint64_t weightsBytes,
                          std::string &error) {
  path_ = path;
  weightsBytes_ = weightsBytes;
  written_ = 0;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0755);
  if (fd_ < 0) {
    error = quoted(path) + ": cannot open for writing: " + errnoText();
    return false;
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0)
    return fail("cannot stat", error);
  uint64_t start = static_cast<uint64_t>(st.st_size);
  weightsOffset_ = alignUp(start, kWeightsAlign);
  checksum_ = WeightsChecksum();
  if (!tfm::rt::writeZeros(fd_, weightsOffset_ - start))
    return fail("write failed", error);
  // A blob of hundreds of MiB goes around the page cache
  // (StagedFileWriter.h); smaller ones (every test's) stay in it for the run
  // that follows.
  constexpr uint64_t kBypassCacheBytes = uint64_t(256) << 20;
  if (!blob_.open(path, weightsOffset_, weightsBytes >= kBypassCacheBytes,
                  error)) {
    ::close(fd_);
    fd_ = -1;
    return false;
  }
  blob_.setDigest([this](const char *data, uint64_t size) {
    checksum_.update(data, size);
  });
  return true;
}

bool PackageWriter::write(const void *data, uint64_t size, std::string &error) {
  if (size > weightsBytes_ - written_) {
    error = quoted(path_) + ": the weights blob would exceed its " +
            std::to_string(weightsBytes_) + " bytes";
    return false;
  }
  if (!blob_.write(data, size, error))
    return false;
  written_ += size;
  return true;
}

bool PackageWriter::writeZeros(uint64_t count, std::string &error) {
  if (count > weightsBytes_ - written_) {
    error = quoted(path_) + ": the weights blob would exceed its " +
            std::to_string(weightsBytes_) + " bytes";
    return false;
  }
  if (!blob_.writeZeros(count, error))
    return false;
  written_ += count;
  return true;
}

bool PackageWriter::finish(uint64_t weightsHash,
                           const PackageMetadata &metadata,
                           std::string &error) {
  if (randomSeed_ && written_ != 0) {
    error = quoted(path_) + ": a blob filled at load cannot have bytes " +
            "written";
    return false;
  }
  if (!randomSeed_ && written_ != weightsBytes_) {
    error = quoted(path_) + ": the weights blob has " +
            std::to_string(written_) + " of its " +
            std::to_string(weightsBytes_) + " bytes";
    return false;
  }
  // The metadata goes after the blob's last byte.
  if (!blob_.close(error))
    return false;
  // A blob filled at load is announced, not stored.
  uint64_t storedBytes = randomSeed_ ? 0 : weightsBytes_;
  uint64_t weightsEnd = weightsOffset_ + storedBytes;
  uint64_t metaOffset = alignUp(weightsEnd, kMetaAlign);
  PackageMetadata withBlob = metadata;
  if (randomSeed_) {
    withBlob[kRandomSeedKey] = std::to_string(*randomSeed_);
    withBlob[kRandomBytesKey] = std::to_string(weightsBytes_);
  } else {
    withBlob[kWeightsChecksumKey] = formatChecksum(checksum_.value());
  }
  std::string meta = encodeMetadata(withBlob);

  std::string trailer(kMagic, sizeof(kMagic));
  putLE(trailer, weightsOffset_, 8);
  putLE(trailer, storedBytes, 8);
  putLE(trailer, metaOffset, 8);
  putLE(trailer, meta.size(), 8);
  putLE(trailer, weightsHash, 8);
  putLE(trailer, 0, 8);
  putLE(trailer, 0, 8);

  if (!tfm::rt::writeZeros(fd_, metaOffset - weightsEnd) ||
      !writeAll(fd_, meta.data(), meta.size()) ||
      !writeAll(fd_, trailer.data(), trailer.size()))
    return fail("write failed", error);
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    error = quoted(path_) + ": write failed: " + errnoText();
    return false;
  }
  return true;
}

} // namespace tfm::rt
