//===- SpmTokenizerTest.cpp - Tests for the "spm" tokenizer ---------------===//
//
// Reference behaviour is llama2.c run.c's encode/decode. Tests that need the
// real vocabularies in TFMC_SHARED_MODELS_DIR skip when they are absent.
//
//===----------------------------------------------------------------------===//
#include "runtime/SpmTokenizer.h"
#include "runtime/Tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>

using namespace tfm::rt;

namespace {

constexpr int kBos = 1;
constexpr int kEos = 2;

std::string modelPath(const std::string &name) {
  return std::string(TFMC_SHARED_MODELS_DIR) + "/" + name;
}

bool fileExists(const std::string &path) {
  return static_cast<bool>(std::ifstream(path));
}

/// Loads a llama2.c tokenizer file through the public blob builder.
std::unique_ptr<Tokenizer> loadLlama2cTokenizer(const std::string &path,
                                                int vocab) {
  std::string blob, error;
  EXPECT_TRUE(spmBlobFromLlama2cFile(path, vocab, blob, error)) << error;
  std::unique_ptr<Tokenizer> tok =
      loadTokenizer("spm", blob, kBos, kEos, error);
  EXPECT_TRUE(tok) << error;
  return tok;
}

/// What the generation loop prints for `ids` (which start with BOS).
std::string decodeAll(const Tokenizer &tok, const std::vector<int> &ids) {
  std::string text;
  for (size_t i = 1; i < ids.size(); ++i)
    text += tok.decode(ids[i - 1], ids[i]);
  return text;
}

std::vector<int> parseIds(const std::string &text) {
  std::vector<int> ids;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos)
      end = text.size();
    ids.push_back(std::stoi(text.substr(pos, end - pos)));
    pos = end + 1;
  }
  return ids;
}

const std::vector<std::string> &roundTripTexts() {
  static const std::vector<std::string> texts = {
      "Once upon a time",
      " Once upon a time, there was a little girl.",
      "Lily said: \"Hello!\"\nTom said:\tbye.",
      "  two leading spaces and trailing  ",
      "\nstarts with a newline",
      "Caf\xC3\xA9 na\xC3\xAFve "
      "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 "
      "\xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80",
      "123 + 456 = 579; x_y {z} ~ |",
      "a",
  };
  return texts;
}

//===-- Hand-made vocabulary ----------------------------------------------===//

/// Pieces small enough to reason about merge order by hand. No byte pieces,
/// so unknown characters fall back to <unk>.
std::unique_ptr<Tokenizer> tinyTokenizer() {
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>", " ",
                                     "a",     "b",   "c",    "ab",
                                     "bc",    " a",  "aa",   "<0x41>"};
  std::vector<float> scores = {0, 0, 0, -5, -1, -1, -1, 1, 2, 0.5f, 1, 0};
  std::string error;
  std::unique_ptr<Tokenizer> tok = loadTokenizer(
      "spm", spmBlobFromPieces(pieces, scores), kBos, kEos, error);
  EXPECT_TRUE(tok) << error;
  return tok;
}

TEST(SpmTokenizer, MergesHighestScoreFirst) {
  auto tok = tinyTokenizer();
  // "bc" (2) beats "ab" (1) and " a" (0.5); afterwards " a" still merges.
  EXPECT_EQ(tok->encode("abc", /*addBos=*/true),
            (std::vector<int>{kBos, 9, 8}));
}

TEST(SpmTokenizer, EqualScoresMergeLeftmostFirst) {
  auto tok = tinyTokenizer();
  // " a" loses to "aa" (1 > 0.5); of the two "aa" pairs the left one wins.
  EXPECT_EQ(tok->encode("aaa", /*addBos=*/false), (std::vector<int>{3, 10, 4}));
}

TEST(SpmTokenizer, EmptyTextHasNoDummyPrefix) {
  auto tok = tinyTokenizer();
  EXPECT_EQ(tok->encode("", /*addBos=*/true), (std::vector<int>{kBos}));
  EXPECT_TRUE(tok->encode("", /*addBos=*/false).empty());
}

TEST(SpmTokenizer, MissingBytePiecesFallBackToUnk) {
  auto tok = tinyTokenizer();
  EXPECT_EQ(tok->encode("z", /*addBos=*/false), (std::vector<int>{3, 0}));
}

TEST(SpmTokenizer, DecodeDropsSpaceOnlyAfterBos) {
  auto tok = tinyTokenizer();
  EXPECT_EQ(tok->decode(kBos, 9), "a");
  EXPECT_EQ(tok->decode(4, 9), " a");
  EXPECT_EQ(tok->decode(kBos, 11), "A");
  EXPECT_EQ(tok->decode(kBos, 999), "");
  EXPECT_EQ(tok->decode(kBos, -1), "");
}

//===-- Malformed blobs ---------------------------------------------------===//

std::string int32Bytes(int32_t v) {
  return std::string(reinterpret_cast<const char *>(&v), sizeof(v));
}

std::string floatBytes(float v) {
  return std::string(reinterpret_cast<const char *>(&v), sizeof(v));
}

std::string loadError(const std::string &blob) {
  std::string error;
  EXPECT_FALSE(loadTokenizer("spm", blob, kBos, kEos, error));
  return error;
}

TEST(SpmTokenizer, RejectsTruncatedHeader) {
  EXPECT_NE(loadError("ab").find("truncated"), std::string::npos);
}

TEST(SpmTokenizer, RejectsBlobWithoutPieces) {
  EXPECT_NE(loadError(int32Bytes(4)).find("no pieces"), std::string::npos);
}

TEST(SpmTokenizer, RejectsNegativeLength) {
  std::string blob = int32Bytes(4) + floatBytes(0) + int32Bytes(-1);
  EXPECT_NE(loadError(blob).find("length -1"), std::string::npos);
}

TEST(SpmTokenizer, RejectsLengthAboveMaxTokenLength) {
  std::string blob = int32Bytes(2) + floatBytes(0) + int32Bytes(3) + "abc";
  EXPECT_NE(loadError(blob).find("max_token_length=2"), std::string::npos);
}

TEST(SpmTokenizer, RejectsTruncatedPieceHeader) {
  std::string blob = int32Bytes(4) + floatBytes(0) + int32Bytes(1) + "a" +
                     floatBytes(0) + "xy";
  EXPECT_NE(loadError(blob).find("truncated in the header of piece 1"),
            std::string::npos);
}

TEST(SpmTokenizer, RejectsTruncatedPieceBytes) {
  std::string blob = int32Bytes(4) + floatBytes(0) + int32Bytes(4) + "ab";
  EXPECT_NE(loadError(blob).find("truncated in the bytes of piece 0"),
            std::string::npos);
}

TEST(SpmTokenizer, RejectsBosOutsideVocabulary) {
  std::string error;
  std::string blob = spmBlobFromPieces({"<unk>", " "}, {0, 0});
  EXPECT_FALSE(loadTokenizer("spm", blob, /*bos=*/5, kEos, error));
  EXPECT_NE(error.find("BOS id 5"), std::string::npos) << error;
}

TEST(SpmTokenizer, PiecesBlobRoundTrips) {
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>", " hello",
                                     "<0x0A>"};
  std::vector<float> scores = {0, 0, 0, -1.5f, 0};
  std::string blob = spmBlobFromPieces(pieces, scores);
  std::vector<std::string> parsedPieces;
  std::vector<float> parsedScores;
  std::string error;
  ASSERT_TRUE(parseSpmBlob(blob, parsedPieces, parsedScores, error)) << error;
  EXPECT_EQ(parsedPieces, pieces);
  EXPECT_EQ(parsedScores, scores);
  int32_t maxLength;
  std::memcpy(&maxLength, blob.data(), sizeof(maxLength));
  EXPECT_EQ(maxLength, 6);
}

TEST(Tokenizer, RejectsUnknownKind) {
  std::string error;
  EXPECT_FALSE(loadTokenizer("wordpiece", "", kBos, kEos, error));
  EXPECT_NE(error.find("unknown tokenizer kind 'wordpiece'"), std::string::npos)
      << error;
}

//===-- Real vocabularies -------------------------------------------------===//

TEST(SpmTokenizer, Tok512DecodesGreedyReference) {
  std::string path = modelPath("tok512.bin");
  if (!fileExists(path))
    GTEST_SKIP() << path << " not found: shared models are absent";
  auto tok = loadLlama2cTokenizer(path, 512);
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->vocabSize(), 512);
  // MODELS.md: stories260K's greedy continuation of BOS.
  std::vector<int> ids = parseIds("1 403 407 261 378 432 383 286 261 376 298 "
                                  "315 421 395 317 426 338 401 396 267 337 "
                                  "410 408 419 292");
  EXPECT_EQ(decodeAll(*tok, ids), "Once upon a time, there was a little girl "
                                  "named Lily. She loved to play outsid");
}

TEST(SpmTokenizer, Tok512EncodesLikeRunC) {
  std::string path = modelPath("tok512.bin");
  if (!fileExists(path))
    GTEST_SKIP() << path << " not found: shared models are absent";
  auto tok = loadLlama2cTokenizer(path, 512);
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->encode("Once upon a time", /*addBos=*/true),
            (std::vector<int>{kBos, 403, 407, 261, 378}));
  // No byte merges exist for '\n': it stays the byte piece <0x0A> (10 + 3).
  std::vector<int> ids = tok->encode("a\nb", /*addBos=*/false);
  EXPECT_NE(std::find(ids.begin(), ids.end(), 13), ids.end());
  EXPECT_EQ(tok->decode(ids.front(), 13), "\n");
}

TEST(SpmTokenizer, Tok512RoundTrips) {
  std::string path = modelPath("tok512.bin");
  if (!fileExists(path))
    GTEST_SKIP() << path << " not found: shared models are absent";
  auto tok = loadLlama2cTokenizer(path, 512);
  ASSERT_TRUE(tok);
  for (const std::string &text : roundTripTexts())
    EXPECT_EQ(decodeAll(*tok, tok->encode(text, /*addBos=*/true)), text);
}

TEST(SpmTokenizer, Llama2VocabEncodesAndRoundTrips) {
  std::string path = modelPath("tokenizer.bin");
  if (!fileExists(path))
    GTEST_SKIP() << path << " not found: shared models are absent";
  auto tok = loadLlama2cTokenizer(path, 32000);
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->vocabSize(), 32000);
  EXPECT_EQ(tok->encode("Once upon a time", /*addBos=*/true),
            (std::vector<int>{kBos, 9038, 2501, 263, 931}));
  for (const std::string &text : roundTripTexts())
    EXPECT_EQ(decodeAll(*tok, tok->encode(text, /*addBos=*/true)), text);
}

TEST(SpmTokenizer, FileWithWrongPieceCountIsRejected) {
  std::string path = modelPath("tok512.bin");
  if (!fileExists(path))
    GTEST_SKIP() << path << " not found: shared models are absent";
  std::string blob, error;
  EXPECT_FALSE(spmBlobFromLlama2cFile(path, 32000, blob, error));
  EXPECT_NE(error.find("tokenizer '" + path +
                       "' has 512 pieces but the model's vocabulary has 32000"),
            std::string::npos)
      << error;
}

TEST(SpmTokenizer, MissingFileIsReported) {
  std::string blob, error;
  EXPECT_FALSE(
      spmBlobFromLlama2cFile("/nonexistent/tok.bin", 512, blob, error));
  EXPECT_NE(error.find("cannot open tokenizer '/nonexistent/tok.bin'"),
            std::string::npos)
      << error;
}

} // namespace
