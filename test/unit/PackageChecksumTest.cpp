//===- PackageChecksumTest.cpp - The weights checksum and --verify-weights ===//

#include "runtime/PackageChecksum.h"
#include "runtime/Package.h"
#include "runtime/ReadFile.h"

#include "test/unit/TempFile.h"

#include <gtest/gtest.h>

#include <string>

using namespace tfm::rt;
using tfm::test::TempFile;

namespace {

std::string sampleBytes(size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<char>(i * 131 + (i >> 7));
  return bytes;
}

} // namespace

TEST(WeightsChecksumTest, IndependentOfHowTheBytesArrive) {
  std::string bytes = sampleBytes(1000);
  uint64_t whole = weightsChecksum(bytes.data(), bytes.size());
  for (size_t piece : {1, 3, 8, 31, 32, 33, 100, 999}) {
    WeightsChecksum checksum;
    for (size_t at = 0; at < bytes.size(); at += piece)
      checksum.update(bytes.data() + at, std::min(piece, bytes.size() - at));
    EXPECT_EQ(checksum.value(), whole) << "pieces of " << piece;
  }
}

TEST(WeightsChecksumTest, EveryFlippedBitChangesIt) {
  for (size_t size : {1, 7, 8, 40, 100}) {
    std::string bytes = sampleBytes(size);
    uint64_t original = weightsChecksum(bytes.data(), bytes.size());
    for (size_t i = 0; i < size; ++i)
      for (int bit = 0; bit < 8; ++bit) {
        std::string flipped = bytes;
        flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
        EXPECT_NE(weightsChecksum(flipped.data(), size), original)
            << "size " << size << ", byte " << i << ", bit " << bit;
      }
  }
  // Trailing zeros count: a blob is not its prefix.
  std::string zeros(64, '\0');
  EXPECT_NE(weightsChecksum(zeros.data(), 32),
            weightsChecksum(zeros.data(), 64));
}

TEST(WeightsChecksumTest, TextRoundTrip) {
  uint64_t value = 0;
  EXPECT_EQ(formatChecksum(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_TRUE(parseChecksum("0123456789abcdef", value));
  EXPECT_EQ(value, 0x0123456789abcdefull);
  EXPECT_FALSE(parseChecksum("0123456789abcde", value));
  EXPECT_FALSE(parseChecksum("0123456789abcdeg", value));
}

TEST(VerifyWeightsTest, PassesUntouchedAndFailsFlipped) {
  TempFile file;
  std::string error;
  std::string weights = sampleBytes(9000);
  ASSERT_TRUE(appendPackage(file.path(), weights, 7, {{"k", "v"}}, error))
      << error;
  Package package;
  ASSERT_TRUE(package.open(file.path(), error)) << error;
  EXPECT_TRUE(package.verifyWeights(error)) << error;
  // The checksum is the package's own, not a model record.
  EXPECT_EQ(package.metadata().size(), 1u);

  std::string bytes = file.read();
  bytes[5000] = static_cast<char>(bytes[5000] ^ 0x40); // inside the blob
  file.write(bytes);
  Package flipped;
  ASSERT_TRUE(flipped.open(file.path(), error)) << error;
  EXPECT_FALSE(flipped.verifyWeights(error));
  EXPECT_NE(error.find("'" + file.path() + "': the weights are corrupt"),
            std::string::npos)
      << error;
}

TEST(ReadFileTest, OnlyRegularFiles) {
  std::string data, error;
  EXPECT_FALSE(readFile("/dev/zero", data, error, "tokenizer"));
  EXPECT_EQ(error, "cannot read tokenizer '/dev/zero': not a regular file");
  EXPECT_FALSE(readFile("/tmp", data, error));
  EXPECT_EQ(error, "cannot read '/tmp': not a regular file");
  Package package;
  EXPECT_FALSE(package.open("/dev/zero", error));
  EXPECT_EQ(error, "'/dev/zero': cannot read: not a regular file");
}
