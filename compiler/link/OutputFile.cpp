//===- OutputFile.cpp - A file written beside its path, then renamed ------===//
#include "compiler/link/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

using namespace tfmc;

llvm::Expected<OutputFile> OutputFile::beside(const std::string &path) {
  llvm::SmallString<256> temporary;
  // The same directory, so that the rename never crosses file systems.
  llvm::sys::fs::createUniquePath(path + ".tmp-%%%%%%", temporary,
                                  /*MakeAbsolute=*/false);
  return OutputFile(path, std::string(temporary));
}

OutputFile::OutputFile(OutputFile &&other) noexcept
    : path_(std::move(other.path_)), temporary_(std::move(other.temporary_)),
      committed_(other.committed_) {
  other.committed_ = true;
}

OutputFile::~OutputFile() {
  if (!committed_)
    llvm::sys::fs::remove(temporary_);
}

llvm::Error OutputFile::commit() {
  if (std::error_code ec = llvm::sys::fs::rename(temporary_, path_))
    return llvm::createStringError("cannot write '" + path_ + "': renaming '" +
                                   temporary_ +
                                   "' over it failed: " + ec.message());
  committed_ = true;
  return llvm::Error::success();
}
