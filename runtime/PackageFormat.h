//===- PackageFormat.h - What the package reader and writer agree on ------===//
//
// The constants of the layout Package.h describes, and the wording of the
// errors both sides give, for Package.cpp (the reader, in every produced
// program) and PackageWriter.cpp (the writer, in the compiler only).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_PACKAGEFORMAT_H
#define TFMC_RUNTIME_PACKAGEFORMAT_H

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace tfm::rt::package_format {

inline constexpr char kMagic[8] = {'T', 'F', 'M', 'P', 'K', 'G', '0', '1'};
inline constexpr uint64_t kTrailerBytes = 64;
inline constexpr uint64_t kWeightsAlign = 4096;
inline constexpr uint64_t kMetaAlign = 8;

inline uint64_t alignUp(uint64_t value, uint64_t align) {
  return (value + align - 1) / align * align;
}

inline std::string quoted(const std::string &path) { return "'" + path + "'"; }

inline std::string errnoText() { return std::strerror(errno); }

} // namespace tfm::rt::package_format

#endif // TFMC_RUNTIME_PACKAGEFORMAT_H
