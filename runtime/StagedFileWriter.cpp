//===- StagedFileWriter.cpp - Stream a long byte run into a file ----------===//
#include "runtime/StagedFileWriter.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace tfm::rt {

namespace {

/// Large enough that a write is one long transfer, small enough that two of
/// them are nothing beside the slot the compiler holds.
constexpr uint64_t kStagingBytes = 8 << 20;

std::string errnoText() { return std::strerror(errno); }

/// Sets or clears O_DIRECT on `fd`.
bool setDirect(int fd, bool direct) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0)
    return false;
  flags = direct ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
  return ::fcntl(fd, F_SETFL, flags) == 0;
}

} // namespace

void StagedFileWriter::AlignedFree::operator()(char *buffer) const {
  std::free(buffer);
}

StagedFileWriter::~StagedFileWriter() {
  if (inFlight_.valid())
    inFlight_.wait();
  if (fd_ >= 0)
    ::close(fd_);
}

bool StagedFileWriter::open(const std::string &path, uint64_t offset,
                            bool bypassCache, std::string &error) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_WRONLY);
  if (fd_ < 0) {
    error = "'" + path + "': cannot open for writing: " + errnoText();
    return false;
  }
  // A file system without O_DIRECT (tmpfs) refuses the flag; the bytes then
  // go through the page cache.
  direct_ = bypassCache && offset % kAlign == 0 && setDirect(fd_, true);
  for (Buffer &buffer : staging_) {
    buffer.reset(
        static_cast<char *>(std::aligned_alloc(kAlign, kStagingBytes)));
    if (!buffer) {
      error = "'" + path + "': cannot allocate the write buffers";
      return false;
    }
  }
  stagedOffset_ = offset;
  return true;
}

std::string StagedFileWriter::writeAt(const char *buffer, uint64_t size,
                                      uint64_t offset) {
  while (size > 0) {
    // O_DIRECT takes whole blocks only: the tail of the run goes through the
    // page cache.
    if (direct_ && size < kAlign) {
      direct_ = false;
      if (!setDirect(fd_, false))
        return "cannot leave O_DIRECT: " + errnoText();
    }
    uint64_t chunk = direct_ ? size / kAlign * kAlign : size;
    ssize_t written = ::pwrite(fd_, buffer, chunk, static_cast<off_t>(offset));
    if (written < 0) {
      if (errno == EINTR)
        continue;
      // A file system may accept the flag and then refuse the transfer.
      if (errno == EINVAL && direct_) {
        direct_ = false;
        if (!setDirect(fd_, false))
          return "cannot leave O_DIRECT: " + errnoText();
        continue;
      }
      return "write failed: " + errnoText();
    }
    buffer += written;
    offset += static_cast<uint64_t>(written);
    size -= static_cast<uint64_t>(written);
  }
  return {};
}

bool StagedFileWriter::waitForWrite(std::string &error) {
  if (!inFlight_.valid())
    return true;
  std::string failure = inFlight_.get();
  if (failure.empty())
    return true;
  error = "'" + path_ + "': " + failure;
  return false;
}

bool StagedFileWriter::flushStaged(std::string &error) {
  if (!waitForWrite(error))
    return false;
  const char *buffer = staging_[filling_].get();
  uint64_t size = staged_, offset = stagedOffset_;
  inFlight_ = std::async(std::launch::async, [this, buffer, size, offset] {
    if (digest_)
      digest_(buffer, size);
    return writeAt(buffer, size, offset);
  });
  filling_ ^= 1;
  stagedOffset_ += staged_;
  staged_ = 0;
  return true;
}

bool StagedFileWriter::write(const void *data, uint64_t size,
                             std::string &error) {
  const char *bytes = static_cast<const char *>(data);
  while (size > 0) {
    uint64_t chunk = std::min(size, kStagingBytes - staged_);
    std::memcpy(staging_[filling_].get() + staged_, bytes, chunk);
    staged_ += chunk;
    bytes += chunk;
    size -= chunk;
    if (staged_ == kStagingBytes && !flushStaged(error))
      return false;
  }
  return true;
}

bool StagedFileWriter::writeZeros(uint64_t count, std::string &error) {
  while (count > 0) {
    uint64_t chunk = std::min(count, kStagingBytes - staged_);
    std::memset(staging_[filling_].get() + staged_, 0, chunk);
    staged_ += chunk;
    count -= chunk;
    if (staged_ == kStagingBytes && !flushStaged(error))
      return false;
  }
  return true;
}

bool StagedFileWriter::close(std::string &error) {
  if ((staged_ > 0 && !flushStaged(error)) || !waitForWrite(error))
    return false;
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    error = "'" + path_ + "': write failed: " + errnoText();
    return false;
  }
  return true;
}

} // namespace tfm::rt
