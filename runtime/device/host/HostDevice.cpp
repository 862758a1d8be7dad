//===- HostDevice.cpp - The host as a device: this process's memory -------===//
#include "runtime/device/host/HostDevice.h"

#include "runtime/device/host/HostKernelErrors.h"

#include "runtime/ModelABI.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace tfm::rt {

namespace {

/// The x86-64 and AArch64 (4 KiB granule) transparent huge page.
constexpr uint64_t kHugePageBytes = 2ull << 20;

/// Buffers of this size or more are anonymous mappings: the OS zeroes
/// their pages and commits each when the code first touches it, so a KV
/// cache for 131072 positions costs the memory of the positions filled.
constexpr uint64_t kMappedBytes = kHugePageBytes;

bool isPowerOfTwo(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

const char *describe(BufferUse use) {
  switch (use) {
  case BufferUse::Scratch:
    return "of scratch for the model's intermediates";
  case BufferUse::Cache:
    return "for the KV cache";
  case BufferUse::Weights:
    return "for the weights";
  }
  return "";
}

} // namespace

uint32_t HostDevice::kind() const { return TFM_DEVICE_HOST; }

void *HostDevice::allocate(uint64_t bytes, uint64_t alignment, BufferUse use,
                           std::string &error) {
  alignment = std::max<uint64_t>(alignment, 1);
  if (!isPowerOfTwo(alignment)) {
    error = "error: cannot allocate " + std::to_string(bytes) + " bytes " +
            describe(use) + ": the alignment " + std::to_string(alignment) +
            " is not a power of two";
    return nullptr;
  }
  // A cache of a huge page or more is aligned to huge pages (see below).
  bool hugePages = use == BufferUse::Cache && bytes >= kHugePageBytes;
  if (hugePages)
    alignment = std::max(alignment, kHugePageBytes);
  // aligned_alloc wants a non-zero multiple of the alignment.
  uint64_t rounded = std::max<uint64_t>(
      (bytes + alignment - 1) / alignment * alignment, alignment);
  void *buffer = nullptr;
  if (rounded >= kMappedBytes && rounded >= bytes) {
    // Over-map by the alignment and use the aligned part: the pages the
    // code never touches are never committed.
    uint64_t mapped = rounded + alignment;
    void *start =
        mapped > rounded
            ? ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            : MAP_FAILED;
    if (start != MAP_FAILED) {
      uintptr_t address = reinterpret_cast<uintptr_t>(start);
      buffer = reinterpret_cast<void *>((address + alignment - 1) / alignment *
                                        alignment);
      mappings_[buffer] = {start, mapped};
    }
  } else if (rounded >= bytes) {
    buffer = std::aligned_alloc(alignment, rounded);
  }
  if (!buffer) {
    error = "error: cannot allocate " + std::to_string(rounded) + " bytes " +
            describe(use);
    return nullptr;
  }
#ifdef MADV_HUGEPAGE
  // Each decode step reads every cached row: at context 1024, llama-110m's
  // 75 MB are 18k pages of 4 KiB, far more than the TLB holds, and every
  // page missed it. On 2 MiB pages attention's share of a decode step at
  // positions 888+ fell from 19.0% to 16.0% and from 16.5% to 14.1%
  // (interleaved runs, x5 and x8). Advice only: where transparent huge
  // pages are off, the cache works the same, slower.
  if (hugePages)
    ::madvise(buffer, rounded, MADV_HUGEPAGE);
#endif
  return buffer;
}

void HostDevice::release(void *buffer) {
  auto mapping = mappings_.find(buffer);
  if (mapping == mappings_.end()) {
    std::free(buffer);
    return;
  }
  ::munmap(mapping->second.start, mapping->second.bytes);
  mappings_.erase(mapping);
}

bool HostDevice::copyToDevice(void *device, const void *host, uint64_t bytes,
                              std::string &) {
  if (bytes)
    std::memcpy(device, host, bytes);
  return true;
}

bool HostDevice::copyToHost(void *host, const void *device, uint64_t bytes,
                            std::string &) {
  if (bytes)
    std::memcpy(host, device, bytes);
  return true;
}

bool HostDevice::zero(void *device, uint64_t bytes, std::string &) {
  if (!bytes)
    return true;
  // A mapping's whole pages are given back instead of written: they read
  // as zero again, and cost no memory until the code touches them.
  auto mapping = mappings_.find(device);
  if (mapping != mappings_.end()) {
    const uint64_t page = 4096;
    uintptr_t begin = reinterpret_cast<uintptr_t>(device);
    uintptr_t end = begin + bytes;
    uintptr_t pagesBegin = (begin + page - 1) / page * page;
    uintptr_t pagesEnd = end / page * page;
    if (pagesEnd > pagesBegin &&
        ::madvise(reinterpret_cast<void *>(pagesBegin), pagesEnd - pagesBegin,
                  MADV_DONTNEED) == 0) {
      std::memset(device, 0, pagesBegin - begin);
      std::memset(reinterpret_cast<void *>(pagesEnd), 0, end - pagesEnd);
      return true;
    }
  }
  std::memset(device, 0, bytes);
  return true;
}

const uint8_t *HostDevice::loadWeights(const uint8_t *mapped, uint64_t bytes,
                                       uint64_t alignment, DeviceBuffer &owner,
                                       std::string &error) {
  // The code reads the mapping itself: the page cache holds the only copy.
  owner.reset();
  uint64_t required = std::max<uint64_t>(alignment, 1);
  if (!isPowerOfTwo(required) ||
      reinterpret_cast<uintptr_t>(mapped) % required != 0) {
    error = "error: the weights (" + std::to_string(bytes) +
            " bytes) are not aligned to the " + std::to_string(required) +
            " bytes the compiled model reads them at";
    return nullptr;
  }
  return mapped;
}

} // namespace tfm::rt

bool tfm::rt::HostDevice::synchronize(std::string &error) {
  return !takeHostKernelError(error);
}
