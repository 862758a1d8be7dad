//===- TempFile.h - A temporary file for unit tests -------------*- C++ -*-===//
#ifndef TFMC_TEST_UNIT_TEMPFILE_H
#define TFMC_TEST_UNIT_TEMPFILE_H

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace tfm::test {

/// A temporary file, removed when the test ends.
class TempFile {
public:
  TempFile() {
    char name[] = "/tmp/tfm-unit-test-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;

  const std::string &path() const { return path_; }
  std::string read() const {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void write(const std::string &bytes) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

private:
  std::string path_;
};

} // namespace tfm::test

#endif // TFMC_TEST_UNIT_TEMPFILE_H
