//===- FrontendSupport.cpp - File access shared by the format readers -----===//
#include "compiler/frontends/FrontendSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <tuple>

using namespace tfmc::frontends;

llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
tfmc::frontends::mapFile(const std::string &path, llvm::StringRef what) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::Twine("cannot read ") + what + " '" +
                                   path + "': " + why);
  };
  // Only a regular file has a size to map: /dev/zero (also behind a
  // symlink) would be read without end, and opening a FIFO blocks, so the
  // path is checked before it is opened...
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return fail("not a regular file");
  auto fd = llvm::sys::fs::openNativeFileForRead(path);
  if (!fd)
    return fail(llvm::toString(fd.takeError()));
  // ... and the opened descriptor after, so the file checked is the file
  // mapped even if the path changed in between.
  if (std::error_code ec = llvm::sys::fs::status(*fd, status)) {
    llvm::sys::fs::closeFile(*fd);
    return fail(ec.message());
  }
  if (status.type() != llvm::sys::fs::file_type::regular_file) {
    llvm::sys::fs::closeFile(*fd);
    return fail("not a regular file");
  }
  // Not null-terminated and not text: lets the buffer be an mmap of the file,
  // which matters for multi-gigabyte weights.
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      *fd, path, status.getSize(), /*RequiresNullTerminator=*/false);
  llvm::sys::fs::closeFile(*fd);
  if (!buffer)
    return fail(buffer.getError().message());
  return std::shared_ptr<llvm::MemoryBuffer>(std::move(*buffer));
}

llvm::Error tfmc::frontends::checkDisjoint(std::vector<TensorBytes> tensors,
                                           llvm::StringRef where) {
  llvm::erase_if(tensors,
                 [](const TensorBytes &t) { return t.begin >= t.end; });
  llvm::sort(tensors, [](const TensorBytes &a, const TensorBytes &b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  // After sorting by start, some tensor overlaps another exactly when one
  // starts before the furthest end seen so far.
  const TensorBytes *furthest = nullptr;
  for (const TensorBytes &tensor : tensors) {
    if (furthest && tensor.begin < furthest->end)
      return llvm::createStringError(
          where + ": tensors '" + furthest->name + "' (bytes [" +
          llvm::Twine(furthest->begin) + ", " + llvm::Twine(furthest->end) +
          ")) and '" + tensor.name + "' (bytes [" + llvm::Twine(tensor.begin) +
          ", " + llvm::Twine(tensor.end) + ")) overlap");
    if (!furthest || tensor.end > furthest->end)
      furthest = &tensor;
  }
  return llvm::Error::success();
}

std::string tfmc::frontends::joinPath(const std::string &directory,
                                      llvm::StringRef name) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

std::string tfmc::frontends::metaspaceToSpace(llvm::StringRef piece) {
  static const char kMetaspace[] = "\xE2\x96\x81"; // U+2581 in UTF-8
  std::string out;
  out.reserve(piece.size());
  while (!piece.empty()) {
    if (piece.consume_front(kMetaspace)) {
      out += ' ';
      continue;
    }
    out += piece.front();
    piece = piece.drop_front();
  }
  return out;
}

llvm::Expected<llvm::json::Value>
tfmc::frontends::parseJson(llvm::StringRef text) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character cannot end the string
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return llvm::createStringError("JSON nested deeper than " +
                                       llvm::Twine(kMaxJsonDepth) +
                                       " levels at byte " + llvm::Twine(i));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return llvm::json::parse(text);
}
