//===- StagedFileWriterTest.cpp - Staged writes land as plain writes would
//-===//

#include "runtime/StagedFileWriter.h"

#include "test/unit/TempFile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>

using tfm::rt::StagedFileWriter;
using tfm::test::TempFile;

namespace {

/// More than two staging buffers, and a tail that is no whole block.
std::string sampleRun() {
  std::string run((uint64_t(17) << 20) + 12345, '\0');
  for (size_t i = 0; i < run.size(); ++i)
    run[i] = static_cast<char>(i * 131 + i / 4099);
  return run;
}

/// Writes a block of prefix to `path`, then `run` from offset 4096 in
/// uneven pieces (a zero run among them) through a writer; returns the file.
std::string writeThrough(const TempFile &file, const std::string &run,
                         bool bypassCache, std::string *digested = nullptr) {
  file.write(std::string(StagedFileWriter::kAlign, 'p'));
  StagedFileWriter writer;
  std::string error;
  EXPECT_TRUE(
      writer.open(file.path(), StagedFileWriter::kAlign, bypassCache, error))
      << error;
  if (digested)
    writer.setDigest([digested](const char *data, uint64_t size) {
      digested->append(data, size);
    });
  uint64_t zerosAt = 5 << 20, zeros = 3 << 20;
  EXPECT_TRUE(writer.write(run.data(), 1, error)) << error;
  EXPECT_TRUE(writer.write(run.data() + 1, zerosAt - 1, error)) << error;
  EXPECT_TRUE(writer.writeZeros(zeros, error)) << error;
  EXPECT_TRUE(writer.write(run.data() + zerosAt + zeros,
                           run.size() - zerosAt - zeros, error))
      << error;
  EXPECT_TRUE(writer.close(error)) << error;
  return file.read();
}

std::string expectedFile(std::string run) {
  std::fill(run.begin() + (5 << 20), run.begin() + (8 << 20), '\0');
  return std::string(StagedFileWriter::kAlign, 'p') + run;
}

TEST(StagedFileWriterTest, BypassingTheCacheWritesWhatPlainWritesWould) {
  std::string run = sampleRun();
  TempFile file;
  EXPECT_EQ(writeThrough(file, run, /*bypassCache=*/true), expectedFile(run));
}

TEST(StagedFileWriterTest, ThroughTheCacheWritesTheSame) {
  std::string run = sampleRun();
  TempFile file;
  EXPECT_EQ(writeThrough(file, run, /*bypassCache=*/false), expectedFile(run));
}

TEST(StagedFileWriterTest, TmpfsGetsTheSameBytes) {
  // tmpfs refused O_DIRECT before Linux 6.6: the writer then writes plainly.
  struct stat shm;
  if (::stat("/dev/shm", &shm) != 0 || !S_ISDIR(shm.st_mode))
    GTEST_SKIP() << "no /dev/shm here";
  char name[] = "/dev/shm/tfm-unit-test-XXXXXX";
  int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string run = sampleRun();
  {
    StagedFileWriter writer;
    std::string error;
    ASSERT_TRUE(writer.open(name, 0, /*bypassCache=*/true, error)) << error;
    ASSERT_TRUE(writer.write(run.data(), run.size(), error)) << error;
    ASSERT_TRUE(writer.close(error)) << error;
  }
  std::ifstream in(name, std::ios::binary);
  std::string written(std::istreambuf_iterator<char>(in), {});
  std::remove(name);
  EXPECT_EQ(written, run);
}

TEST(StagedFileWriterTest, TheDigestSeesEveryByteInOrder) {
  std::string run = sampleRun();
  TempFile file;
  std::string digested;
  writeThrough(file, run, /*bypassCache=*/true, &digested);
  EXPECT_EQ(digested, expectedFile(run).substr(StagedFileWriter::kAlign));
}

TEST(StagedFileWriterTest, AFileThatCannotBeOpenedIsNamed) {
  StagedFileWriter writer;
  std::string error;
  EXPECT_FALSE(writer.open("/nonexistent/dir/out", 0, true, error));
  EXPECT_NE(error.find("'/nonexistent/dir/out': cannot open for writing"),
            std::string::npos)
      << error;
}

} // namespace
