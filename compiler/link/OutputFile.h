//===- OutputFile.h - A file written beside its path, then renamed --------===//
//
// What tfmc writes (an executable, a library's files) is written under a
// unique name in the same directory and renamed over the final path once
// complete. A compile that fails or is interrupted leaves an existing file
// as it was, and two compiles to the same path each leave a whole file
// (rename is atomic within a directory), never one file holding both.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_LINK_OUTPUTFILE_H
#define TFMC_COMPILER_LINK_OUTPUTFILE_H

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

class OutputFile {
public:
  /// Picks `<path>.tmp-XXXXXX` beside `path`; nothing is created yet.
  static llvm::Expected<OutputFile> beside(const std::string &path);

  OutputFile(OutputFile &&other) noexcept;
  OutputFile &operator=(OutputFile &&) = delete;
  OutputFile(const OutputFile &) = delete;
  /// Removes the temporary file unless it was committed.
  ~OutputFile();

  /// Where to write.
  const std::string &temporaryPath() const { return temporary_; }
  /// Renames the written file over the final path.
  llvm::Error commit();

private:
  OutputFile(std::string path, std::string temporary)
      : path_(std::move(path)), temporary_(std::move(temporary)) {}

  std::string path_;
  std::string temporary_;
  bool committed_ = false;
};

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_OUTPUTFILE_H
