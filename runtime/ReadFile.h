//===- ReadFile.h - Whole files into memory, with a named error -*- C++ -*-===//
#ifndef TFMC_RUNTIME_READFILE_H
#define TFMC_RUNTIME_READFILE_H

#include <string>

namespace tfm::rt {

/// Reads the whole file at `path` into `data`; false and "cannot open
/// '<path>'" / "cannot read '<path>'" in `error` on failure.
bool readFile(const std::string &path, std::string &data, std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_READFILE_H
