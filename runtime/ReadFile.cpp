//===- ReadFile.cpp - Whole files into memory, with a named error ---------===//
//
// fstat on the opened descriptor as well as stat on the path, so the file
// checked is the file read even when the path changes in between.
//
//===----------------------------------------------------------------------===//
#include "runtime/ReadFile.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tfm::rt {

bool readFile(const std::string &path, std::string &data, std::string &error,
              const std::string &what) {
  std::string name = (what.empty() ? "" : what + " ") + "'" + path + "'";
  // Checked before opening too: opening a FIFO blocks until a writer comes.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = "cannot read " + name + ": not a regular file";
    return false;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + name;
    return false;
  }
  auto fail = [&](const std::string &message) {
    ::close(fd);
    error = message;
    return false;
  };
  if (::fstat(fd, &st) != 0)
    return fail("cannot read " + name);
  if (!S_ISREG(st.st_mode))
    return fail("cannot read " + name + ": not a regular file");
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxReadFileBytes)
    return fail(name + " is " + std::to_string(size) +
                " bytes, more than the " + std::to_string(kMaxReadFileBytes) +
                " bytes a file read whole may have");
  data.resize(size);
  uint64_t done = 0;
  // Reads what fstat reported: a file that grows meanwhile is cut there.
  while (done < size) {
    ssize_t got = ::read(fd, &data[done], size - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return fail("cannot read " + name);
    if (got == 0)
      break;
    done += static_cast<uint64_t>(got);
  }
  data.resize(done);
  ::close(fd);
  return true;
}

} // namespace tfm::rt
