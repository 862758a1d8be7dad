//===- PackageTest.cpp - Round-trip and corruption tests for Package ------===//

#include "runtime/Package.h"
#include "runtime/RandomWeights.h"

#include "test/unit/TempFile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using tfm::rt::appendPackage;
using tfm::rt::Package;
using tfm::rt::PackageMetadata;
using tfm::rt::PackageWriter;

using tfm::test::TempFile;

namespace {

std::string sampleWeights() {
  std::string weights(10000, '\0');
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = static_cast<char>(i * 31 + 7);
  return weights;
}

PackageMetadata sampleMetadata() {
  return {{"tokenizer.kind", "spm"},
          {"tokenizer.data", std::string("\0\x01\x02 binary", 10)},
          {"token.bos", "1"},
          {"token.eos", "2"},
          {"model.description", "tiny test model"},
          {"empty", ""}};
}

/// Writes an executable-like prefix, then a package; returns the file bytes.
std::string writeSamplePackage(const TempFile &file,
                               const std::string &prefix) {
  file.write(prefix);
  std::string error;
  EXPECT_TRUE(appendPackage(file.path(), sampleWeights(), 0x1234abcdull,
                            sampleMetadata(), error))
      << error;
  return file.read();
}

void putU64(std::string &bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

/// Offset of a trailer field, counted from the end of the file.
size_t trailerField(const std::string &bytes, int index) {
  return bytes.size() - 64 + 8 + 8 * index;
}

std::string openError(const TempFile &file) {
  Package package;
  std::string error;
  EXPECT_FALSE(package.open(file.path(), error));
  EXPECT_NE(error.find(file.path()), std::string::npos) << error;
  return error;
}

} // namespace

TEST(PackageTest, RoundTripAfterPrefix) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, std::string(1234, 'x'));

  Package package;
  std::string error;
  ASSERT_TRUE(package.open(file.path(), error)) << error;
  EXPECT_EQ(package.weightsBytes(), sampleWeights().size());
  EXPECT_EQ(package.weightsHash(), 0x1234abcdull);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(package.weights()),
                        package.weightsBytes()),
            sampleWeights());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(package.weights()) % 4096, 0u);
  EXPECT_EQ(package.metadata(), sampleMetadata());
  EXPECT_EQ(package.get("token.bos"), "1");
  EXPECT_EQ(package.get("missing"), "");
  // The prefix (the executable) is untouched.
  EXPECT_EQ(bytes.substr(0, 1234), std::string(1234, 'x'));
}

TEST(PackageTest, RoundTripEmptyFileAndEmptyParts) {
  TempFile file;
  std::remove(file.path().c_str()); // appendPackage creates it.
  std::string error;
  ASSERT_TRUE(appendPackage(file.path(), "", 7, {}, error)) << error;

  Package package;
  ASSERT_TRUE(package.open(file.path(), error)) << error;
  EXPECT_EQ(package.weightsBytes(), 0u);
  EXPECT_EQ(package.weightsHash(), 7u);
  EXPECT_TRUE(package.metadata().empty());
}

TEST(PackageTest, ReopenReplacesPreviousPackage) {
  TempFile first, second;
  writeSamplePackage(first, "abc");
  second.write("");
  std::string error;
  ASSERT_TRUE(appendPackage(second.path(), "wxyz", 99, {{"k", "v"}}, error));

  Package package;
  ASSERT_TRUE(package.open(first.path(), error)) << error;
  ASSERT_TRUE(package.open(second.path(), error)) << error;
  EXPECT_EQ(package.weightsBytes(), 4u);
  EXPECT_EQ(package.weightsHash(), 99u);
  EXPECT_EQ(package.metadata().size(), 1u);
}

TEST(PackageTest, MissingFile) {
  Package package;
  std::string error;
  EXPECT_FALSE(package.open("/nonexistent/dir/model", error));
  EXPECT_NE(error.find("'/nonexistent/dir/model': cannot open"),
            std::string::npos)
      << error;
}

TEST(PackageTest, TooSmallFile) {
  TempFile file;
  file.write("short");
  EXPECT_NE(openError(file).find("no tfmc package found"), std::string::npos);
}

TEST(PackageTest, NoTrailer) {
  TempFile file;
  file.write(std::string(5000, 'E'));
  EXPECT_EQ(openError(file), "'" + file.path() +
                                 "': no tfmc package found (missing "
                                 "TFMPKG01 trailer)");
}

TEST(PackageTest, TruncatedWeights) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  // Claim a blob far larger than the file.
  putU64(bytes, trailerField(bytes, 1), 1ull << 40);
  file.write(bytes);
  std::string error = openError(file);
  EXPECT_NE(error.find("weights blob truncated: expects 1099511627776 bytes "
                       "at offset 4096 but the file has " +
                       std::to_string(bytes.size())),
            std::string::npos)
      << error;
}

TEST(PackageTest, HugeOffsetDoesNotWrap) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  putU64(bytes, trailerField(bytes, 0), ~0ull - 4095); // 4096-aligned.
  file.write(bytes);
  EXPECT_NE(openError(file).find("weights blob truncated"), std::string::npos);
}

TEST(PackageTest, MisalignedWeights) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  putU64(bytes, trailerField(bytes, 0), 4100);
  file.write(bytes);
  EXPECT_NE(openError(file).find("not 4096-byte aligned"), std::string::npos);
}

TEST(PackageTest, MetadataSizeMismatch) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  size_t field = trailerField(bytes, 3);
  putU64(bytes, field, 3);
  file.write(bytes);
  EXPECT_NE(openError(file).find("metadata truncated"), std::string::npos);
}

TEST(PackageTest, MetadataOverlapsWeights) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  putU64(bytes, trailerField(bytes, 2), 4096 + 8);
  file.write(bytes);
  EXPECT_NE(openError(file).find("overlaps the weights blob"),
            std::string::npos);
}

TEST(PackageTest, CorruptRecordFraming) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  // The first record's key length sits at the start of the metadata section.
  size_t metaOffset = 0;
  for (int i = 0; i < 8; ++i)
    metaOffset |= static_cast<size_t>(
                      static_cast<uint8_t>(bytes[trailerField(bytes, 2) + i]))
                  << (8 * i);
  bytes[metaOffset + 3] = '\x7f';
  file.write(bytes);
  EXPECT_NE(openError(file).find("overruns the section"), std::string::npos);
}

TEST(PackageTest, TruncatedFileLosesTrailer) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  file.write(bytes.substr(0, bytes.size() - 10));
  EXPECT_NE(openError(file).find("missing TFMPKG01 trailer"),
            std::string::npos);
}

TEST(PackageTest, NonZeroReserved) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, "ELF");
  putU64(bytes, trailerField(bytes, 5), 1);
  file.write(bytes);
  EXPECT_NE(openError(file).find("reserved"), std::string::npos);
}

TEST(PackageTest, AppendToUnwritablePathFails) {
  std::string error;
  EXPECT_FALSE(appendPackage("/nonexistent/dir/out", "w", 1, {}, error));
  EXPECT_NE(error.find("'/nonexistent/dir/out'"), std::string::npos) << error;
}

TEST(PackageWriterTest, StreamedPiecesEqualOneWrite) {
  // A blob with a run of zeros in the middle, streamed in uneven pieces.
  std::string weights = sampleWeights();
  std::fill(weights.begin() + 5000, weights.begin() + 7000, '\0');
  TempFile whole, streamed;
  whole.write("prefix");
  streamed.write("prefix");
  std::string error;
  ASSERT_TRUE(appendPackage(whole.path(), weights, 42, sampleMetadata(), error))
      << error;
  PackageWriter writer;
  ASSERT_TRUE(writer.begin(streamed.path(), weights.size(), error)) << error;
  ASSERT_TRUE(writer.write(weights.data(), 1, error)) << error;
  ASSERT_TRUE(writer.write(weights.data() + 1, 4999, error)) << error;
  ASSERT_TRUE(writer.writeZeros(2000, error)) << error;
  EXPECT_EQ(writer.written(), 7000u);
  ASSERT_TRUE(writer.write(weights.data() + 7000, 3000, error)) << error;
  ASSERT_TRUE(writer.finish(42, sampleMetadata(), error)) << error;
  EXPECT_EQ(streamed.read(), whole.read());
}

TEST(PackageWriterTest, FinishRejectsAnIncompleteBlob) {
  TempFile file;
  std::string error;
  PackageWriter writer;
  ASSERT_TRUE(writer.begin(file.path(), 10, error)) << error;
  ASSERT_TRUE(writer.write("abcd", 4, error)) << error;
  EXPECT_FALSE(writer.finish(1, {}, error));
  EXPECT_NE(error.find("the weights blob has 4 of its 10 bytes"),
            std::string::npos)
      << error;
}

TEST(PackageWriterTest, WritesStopAtTheBlobSize) {
  TempFile file;
  std::string error;
  PackageWriter writer;
  ASSERT_TRUE(writer.begin(file.path(), 4, error)) << error;
  EXPECT_FALSE(writer.write("abcde", 5, error));
  EXPECT_NE(error.find("would exceed its 4 bytes"), std::string::npos) << error;
  EXPECT_FALSE(writer.writeZeros(5, error));
  EXPECT_EQ(writer.written(), 0u);
}

/// A package linked into a program (tfmc --emit=lib) is read from memory
/// with the same checks as a file; the buffer must start on a page so that
/// the weights are as aligned as in the file.
TEST(PackageTest, OpenMemory) {
  TempFile file;
  std::string bytes = writeSamplePackage(file, std::string(100, 'x'));
  auto *page = static_cast<uint8_t *>(
      std::aligned_alloc(4096, (bytes.size() + 4096) / 4096 * 4096 + 4096));
  ASSERT_NE(page, nullptr);
  std::copy(bytes.begin(), bytes.end(), page);

  Package package;
  std::string error;
  ASSERT_TRUE(package.openMemory(page, bytes.size(), "linked", error)) << error;
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(package.weights()),
                        package.weightsBytes()),
            sampleWeights());
  EXPECT_EQ(package.metadata(), sampleMetadata());
  EXPECT_TRUE(package.verifyWeights(error)) << error;

  // Off the page start, the blob is misaligned in memory.
  std::copy(bytes.begin(), bytes.end(), page + 64);
  EXPECT_FALSE(package.openMemory(page + 64, bytes.size(), "linked", error));
  EXPECT_NE(error.find("'linked': the weights blob is not 4096-byte aligned"),
            std::string::npos)
      << error;
  EXPECT_EQ(package.weights(), nullptr);

  // Cut short: the trailer's offsets no longer fit.
  EXPECT_FALSE(package.openMemory(page + 64, 1000, "linked", error));
  EXPECT_NE(error.find("'linked': no tfmc package found"), std::string::npos)
      << error;
  EXPECT_FALSE(package.openMemory(nullptr, 0, "linked", error));
  EXPECT_NE(error.find("too small for the TFMPKG01 trailer"), std::string::npos)
      << error;
  std::free(page);
}

TEST(PackageTest, RandomWeightsAreFilledAtLoad) {
  TempFile file;
  file.write("prefix");
  std::string error;
  PackageWriter writer;
  ASSERT_TRUE(writer.begin(file.path(), 10000, error)) << error;
  writer.fillAtLoad(77);
  ASSERT_TRUE(writer.finish(0x1234, sampleMetadata(), error)) << error;
  // The file holds the prefix, padding, metadata and trailer: no blob.
  EXPECT_LT(file.read().size(), 4096u + 400u);

  Package package;
  ASSERT_TRUE(package.open(file.path(), error)) << error;
  EXPECT_EQ(package.weightsBytes(), 10000u);
  EXPECT_EQ(package.randomSeed(), std::optional<uint64_t>(77));
  EXPECT_EQ(package.metadata(), sampleMetadata());
  EXPECT_EQ(package.recordedChecksum(), "");
  const uint8_t *weights = package.weights();
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(weights) % 4096, 0u);
  std::vector<uint8_t> expected(10000);
  tfm::rt::fillRandomWeights(expected.data(), expected.size(), 77, 1);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), weights));
  EXPECT_EQ(package.weights(), weights); // filled once
  EXPECT_FALSE(package.verifyWeights(error));
  EXPECT_NE(error.find("the weights are random (compiled with "
                       "--random-weights, seed 77): there are no model "
                       "weights to verify"),
            std::string::npos)
      << error;
}

namespace {

/// The error of opening a package whose blob is `weights` and whose
/// metadata adds `random` to the sample's.
std::string openErrorWith(const PackageMetadata &random,
                          const std::string &weights) {
  TempFile file;
  std::string error;
  PackageMetadata metadata = sampleMetadata();
  metadata.insert(random.begin(), random.end());
  EXPECT_TRUE(appendPackage(file.path(), weights, 1, metadata, error)) << error;
  Package package;
  EXPECT_FALSE(package.open(file.path(), error));
  return error;
}

} // namespace

TEST(PackageTest, RandomWeightsKeysMustComeTogether) {
  std::string error = openErrorWith({{tfm::rt::kRandomSeedKey, "5"}}, "");
  EXPECT_NE(error.find("metadata has 'weights.random_seed' without "
                       "'weights.random_bytes'"),
            std::string::npos)
      << error;
}

TEST(PackageTest, RandomWeightsSizeMustBeDecimal) {
  std::string error = openErrorWith(
      {{tfm::rt::kRandomSeedKey, "5"}, {tfm::rt::kRandomBytesKey, "12x"}}, "");
  EXPECT_NE(error.find("metadata 'weights.random_bytes' is '12x', not a "
                       "decimal number"),
            std::string::npos)
      << error;
}

TEST(PackageTest, RandomWeightsWithAStoredBlobAreRefused) {
  std::string error = openErrorWith(
      {{tfm::rt::kRandomSeedKey, "5"}, {tfm::rt::kRandomBytesKey, "16"}},
      "sixteen bytes..!");
  EXPECT_NE(error.find("the weights are random (metadata "
                       "'weights.random_seed') but the package stores 16 "
                       "bytes of them"),
            std::string::npos)
      << error;
}

TEST(PackageWriterTest, RandomWeightsTakeNoBytes) {
  TempFile file;
  std::string error;
  PackageWriter writer;
  ASSERT_TRUE(writer.begin(file.path(), 10, error)) << error;
  ASSERT_TRUE(writer.write("abcd", 4, error)) << error;
  writer.fillAtLoad(1);
  EXPECT_FALSE(writer.finish(1, {}, error));
  EXPECT_NE(error.find("a blob filled at load cannot have bytes written"),
            std::string::npos)
      << error;
}
