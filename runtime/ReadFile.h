//===- ReadFile.h - Whole files into memory, with a named error -*- C++ -*-===//
#ifndef TFMC_RUNTIME_READFILE_H
#define TFMC_RUNTIME_READFILE_H

#include <cstdint>
#include <string>

namespace tfm::rt {

/// Files read whole (tokenizers, JSON) are far smaller than this; the cap
/// keeps a mistaken path (a disk image, a huge log) from exhausting memory.
constexpr uint64_t kMaxReadFileBytes = uint64_t(1) << 30;

/// Reads the whole file at `path` into `data`. Only a regular file (a
/// symlink is followed) of at most kMaxReadFileBytes is read: /dev/zero or a
/// FIFO would never end. False and "cannot open <what> '<path>'" (`what`
/// empty: "cannot open '<path>'"), "cannot read ..." or a size error in
/// `error` on failure.
bool readFile(const std::string &path, std::string &data, std::string &error,
              const std::string &what = "");

} // namespace tfm::rt

#endif // TFMC_RUNTIME_READFILE_H
