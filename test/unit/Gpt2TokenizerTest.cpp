//===- Gpt2TokenizerTest.cpp - Tests for the "gpt2-bpe" tokenizer ---------===//
//
// Expected ids come from the reference encoder (npm gpt-3-encoder 1.1.4);
// test/e2e/gpt2-tokenizer-vs-npm.test compares with it on a larger corpus.
// Tests that need GPT-2's vocabulary in TFMC_SHARED_MODELS_DIR skip when it
// is absent.
//
//===----------------------------------------------------------------------===//
#include "runtime/Gpt2Tokenizer.h"
#include "runtime/Tokenizer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace tfm::rt;

namespace {

constexpr int kEndOfText = 50256;

std::string gpt2Dir() {
  return std::string(TFMC_SHARED_MODELS_DIR) + "/gpt2-tokenizer";
}

/// GPT-2's tokenizer, loaded once; null when the shared files are absent.
const Tokenizer *gpt2() {
  static std::unique_ptr<Tokenizer> tok = [] {
    std::string blob, error;
    if (!gpt2BlobFromFiles(gpt2Dir() + "/vocab.json", gpt2Dir() + "/merges.txt",
                           blob, error))
      return std::unique_ptr<Tokenizer>();
    return loadTokenizer("gpt2-bpe", blob, kEndOfText, kEndOfText, error);
  }();
  return tok.get();
}

#define REQUIRE_GPT2()                                                         \
  if (!gpt2())                                                                 \
  GTEST_SKIP() << gpt2Dir() << "/{vocab.json,merges.txt} not found or invalid"

std::string decodeAll(const Tokenizer &tok, const std::vector<int> &ids) {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i)
    text += tok.decode(i ? ids[i - 1] : -1, ids[i]);
  return text;
}

std::vector<std::string> pieces(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view piece : Gpt2Tokenizer::pretokenize(text))
    out.emplace_back(piece);
  return out;
}

/// Writes `contents` to a fresh file under the test's temporary directory.
std::string writeTemp(const std::string &name, const std::string &contents) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

//===-- Pre-tokeniser -----------------------------------------------------===//

TEST(Gpt2Pretokenize, WordsTakeOneLeadingSpace) {
  EXPECT_EQ(pieces("Hello world"),
            (std::vector<std::string>{"Hello", " world"}));
  EXPECT_EQ(pieces(" 123abc!?"),
            (std::vector<std::string>{" 123", "abc", "!?"}));
}

TEST(Gpt2Pretokenize, WhitespaceRunsLeaveTheLastSpaceToTheNextWord) {
  EXPECT_EQ(pieces("a   b"), (std::vector<std::string>{"a", "  ", " b"}));
  EXPECT_EQ(pieces("a \n\tb"),
            (std::vector<std::string>{"a", " \n", "\t", "b"}));
  EXPECT_EQ(pieces("x  "), (std::vector<std::string>{"x", "  "}));
  EXPECT_EQ(pieces("a\nb"), (std::vector<std::string>{"a", "\n", "b"}));
}

TEST(Gpt2Pretokenize, ContractionsAreLowercaseOnly) {
  EXPECT_EQ(pieces("I'm we'll"),
            (std::vector<std::string>{"I", "'m", " we", "'ll"}));
  EXPECT_EQ(pieces("IT'S"), (std::vector<std::string>{"IT", "'", "S"}));
  EXPECT_EQ(pieces("''s"), (std::vector<std::string>{"''", "s"}));
}

TEST(Gpt2Pretokenize, UnicodeClasses) {
  // Letters (é, Ж, 中), a letter-number (Ⅻ), a no-break space (\s), emoji.
  EXPECT_EQ(pieces("caf\xC3\xA9 \xD0\x96\xE4\xB8\xAD \xE2\x85\xAB"
                   "\xC2\xA0\xF0\x9F\x98\x80"),
            (std::vector<std::string>{"caf\xC3\xA9", " \xD0\x96\xE4\xB8\xAD",
                                      " \xE2\x85\xAB", "\xC2\xA0",
                                      "\xF0\x9F\x98\x80"}));
}

TEST(Gpt2Pretokenize, InvalidUtf8BytesArePunctuation) {
  EXPECT_EQ(pieces("a\xFF\xFE b"),
            (std::vector<std::string>{"a", "\xFF\xFE", " b"}));
}

//===-- GPT-2's vocabulary ------------------------------------------------===//

TEST(Gpt2Tokenizer, EncodesKnownIds) {
  REQUIRE_GPT2();
  const Tokenizer &tok = *gpt2();
  EXPECT_EQ(tok.vocabSize(), 50257);
  EXPECT_EQ(tok.encode("Hello world", false), (std::vector<int>{15496, 995}));
  EXPECT_EQ(tok.encode(" The quick brown fox jumps over the lazy dog.", false),
            (std::vector<int>{383, 2068, 7586, 21831, 18045, 625, 262, 16931,
                              3290, 13}));
  EXPECT_EQ(tok.encode("I'm here, aren't you?", false),
            (std::vector<int>{40, 1101, 994, 11, 3588, 470, 345, 30}));
  EXPECT_EQ(tok.encode("hello\n\nworld  ", false),
            (std::vector<int>{31373, 198, 198, 6894, 220, 220}));
  EXPECT_EQ(tok.encode("\xF0\x9F\x98\x80 caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87",
                       false),
            (std::vector<int>{47249, 222, 40304, 220, 40792, 23877, 229}));
  EXPECT_EQ(tok.encode("   x", false), (std::vector<int>{220, 220, 2124}));
}

TEST(Gpt2Tokenizer, SpecialTokenTextIsOrdinaryText) {
  REQUIRE_GPT2();
  EXPECT_EQ(gpt2()->encode("<|endoftext|>", false),
            (std::vector<int>{27, 91, 437, 1659, 5239, 91, 29}));
  EXPECT_EQ(gpt2()->decode(-1, kEndOfText), "<|endoftext|>");
}

// GPT-2's tokenizer adds no BOS: a prompt starts with its own text, as
// transformers' generate() sees it.
TEST(Gpt2Tokenizer, AddsNoSpecialTokens) {
  REQUIRE_GPT2();
  EXPECT_EQ(gpt2()->encode("Hello", true), (std::vector<int>{15496}));
  EXPECT_EQ(gpt2()->encode("Hello", false), (std::vector<int>{15496}));
}

TEST(Gpt2Tokenizer, RoundTrips) {
  REQUIRE_GPT2();
  const std::vector<std::string> texts = {
      "Hello world",
      "  leading and trailing  \n",
      "\tdef f(x):\n\t\treturn x ** 2  # square\n",
      "Caf\xC3\xA9 \xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 "
      "\xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD "
      "\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7",
      "It's 12:30, we've 1,234.5 units; THEY'LL see.",
      "invalid utf-8 \xFF\xC3 bytes survive",
      "",
  };
  for (const std::string &text : texts)
    EXPECT_EQ(decodeAll(*gpt2(), gpt2()->encode(text, false)), text);
}

TEST(Gpt2Tokenizer, DecodeOutOfRangeIsEmpty) {
  REQUIRE_GPT2();
  EXPECT_EQ(gpt2()->decode(-1, 50257), "");
  EXPECT_EQ(gpt2()->decode(-1, -3), "");
  EXPECT_EQ(gpt2()->decode(-1, 220), " ");
}

//===-- Hand-made vocabularies --------------------------------------------===//

std::unique_ptr<Tokenizer>
tinyTokenizer(const std::vector<std::string> &tokens,
              const std::vector<std::string> &merges) {
  std::string error;
  std::unique_ptr<Tokenizer> tok = loadTokenizer(
      "gpt2-bpe", gpt2BlobFromVocab(tokens, merges), -1, -1, error);
  EXPECT_TRUE(tok) << error;
  return tok;
}

TEST(Gpt2Tokenizer, MergesByRank) {
  auto tok = tinyTokenizer({"a", "b", "c", "ab", "bc", "abc"}, {"b c", "a b"});
  // "b c" has the better rank, and "a bc" is no merge.
  EXPECT_EQ(tok->encode("abc", false), (std::vector<int>{0, 4}));
  auto other =
      tinyTokenizer({"a", "b", "c", "ab", "bc", "abc"}, {"a b", "b c", "ab c"});
  EXPECT_EQ(other->encode("abc", false), (std::vector<int>{5}));
}

TEST(Gpt2Tokenizer, MergeRanksAreKeyedLikeTheReference) {
  // The reference looks pairs up as "first,second", so the pair ("!", ",?")
  // takes the rank of the merge "!, ?" and merges; npm gives [5] too.
  auto tok = tinyTokenizer({"!", ",", "?", ",?", "!,", "!,?"}, {", ?", "!, ?"});
  EXPECT_EQ(tok->encode("!,?", false), (std::vector<int>{5}));
  EXPECT_EQ(tok->encode("?,?", false), (std::vector<int>{2, 3}));
}

TEST(Gpt2Tokenizer, ByteSpellingIsUnmapped) {
  // "\xC4\xA0" is U+0120 (Ġ), GPT-2's spelling of the space byte.
  auto tok = tinyTokenizer({"\xC4\xA0", "a",
                            "\xC4\xA0"
                            "a"},
                           {"\xC4\xA0 a"});
  EXPECT_EQ(tok->encode(" a", false), (std::vector<int>{2}));
  EXPECT_EQ(tok->decode(-1, 2), " a");
}

//===-- Files and blobs ---------------------------------------------------===//

TEST(Gpt2Tokenizer, VocabJsonEscapes) {
  std::string vocab = writeTemp(
      "escapes_vocab.json",
      "{ \"\\u0120a\": 0, \"\\ud83d\\ude00\": 1, \"x\\\"y\\\\z\\/\": 2,\n"
      "  \"\\t\": 3, \"\\u00e9\": 4 }\n");
  std::string merges = writeTemp("escapes_merges.txt", "#version: 0.2\n");
  std::string blob, error;
  ASSERT_TRUE(gpt2BlobFromFiles(vocab, merges, blob, error)) << error;
  std::unique_ptr<Tokenizer> tok =
      loadTokenizer("gpt2-bpe", blob, -1, -1, error);
  ASSERT_TRUE(tok) << error;
  EXPECT_EQ(tok->decode(-1, 0), " a");
  EXPECT_EQ(tok->decode(-1, 1), "\xF0\x9F\x98\x80");
  EXPECT_EQ(tok->decode(-1, 2), "x\"y\\z/");
  EXPECT_EQ(tok->decode(-1, 3), "\t");
  // U+00E9 is GPT-2's spelling of the byte 0xE9.
  EXPECT_EQ(tok->decode(-1, 4), "\xE9");
}

std::string filesError(const std::string &vocabJson,
                       const std::string &merges) {
  std::string blob, error;
  EXPECT_FALSE(gpt2BlobFromFiles(writeTemp("bad_vocab.json", vocabJson),
                                 writeTemp("bad_merges.txt", merges), blob,
                                 error));
  return error;
}

TEST(Gpt2Tokenizer, RejectsMalformedFiles) {
  EXPECT_NE(filesError("[1, 2]", "").find("an array, not an object"),
            std::string::npos);
  // vocab.json is read by the JSON parser tokenizer.json uses (hf::parseJson),
  // which names the line and column of a syntax error.
  EXPECT_NE(filesError("{\"a\": 0,}", "")
                .find("line 1, column 9: expected "
                      "a string key"),
            std::string::npos);
  EXPECT_NE(filesError("{\"a\": 1.5}", "").find("integer"), std::string::npos);
  EXPECT_NE(filesError("{\"a\": \"0\"}", "").find("integer"),
            std::string::npos);
  // A repeated token is refused, not resolved to its last id.
  EXPECT_NE(filesError("{\"a\": 0, \"a\": 1}", "").find("duplicate key \"a\""),
            std::string::npos);
  EXPECT_NE(filesError("{\"a\": 0, \"b\": 2}", "").find("token id 2"),
            std::string::npos);
  EXPECT_NE(filesError("{\"a\": 0}", "#version: 0.2\na b c\n").find("line 2"),
            std::string::npos);
  std::string blob, error;
  EXPECT_FALSE(gpt2BlobFromFiles("/nonexistent/vocab.json", "/nonexistent/m",
                                 blob, error));
  EXPECT_NE(error.find("cannot open '/nonexistent/vocab.json'"),
            std::string::npos);
}

std::string blobError(const std::string &blob, int bos = -1) {
  std::string error;
  EXPECT_FALSE(loadTokenizer("gpt2-bpe", blob, bos, -1, error));
  return error;
}

TEST(Gpt2Tokenizer, RejectsMalformedBlobs) {
  std::string good = gpt2BlobFromVocab({"a", "b", "ab"}, {"a b"});
  EXPECT_NE(blobError("not a blob").find("does not start with"),
            std::string::npos);
  EXPECT_NE(blobError(good.substr(0, 10)).find("header"), std::string::npos);
  EXPECT_NE(blobError(good.substr(0, good.size() - 1)).find("merge 0"),
            std::string::npos);
  EXPECT_NE(blobError(good.substr(0, 20)).find("token"), std::string::npos);
  EXPECT_NE(blobError(good + "x").find("trailing"), std::string::npos);
  EXPECT_NE(blobError(good, /*bos=*/3).find("special token id 3"),
            std::string::npos);
  EXPECT_NE(blobError(gpt2BlobFromVocab({}, {})).find("no tokens"),
            std::string::npos);
}

} // namespace
