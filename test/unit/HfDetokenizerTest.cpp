//===- HfDetokenizerTest.cpp - Streaming decode of generated ids ----------===//
//
// A Detokenizer prints generated text id by id; what its steps and finish()
// return must concatenate to HF's decode(ids, skip_special_tokens=True), and
// each step must print what its id completes, holding back only what later
// ids can still change (half of a UTF-8 character).
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/HfTokenizer.h"

#include "HfTestSupport.h"

#include "runtime/ByteLevel.h"

#include <gtest/gtest.h>

using namespace tfm::rt;
using tfm::rt::test::loadHf;
using tfm::rt::test::streamDecode;
using tfm::rt::test::tokenizerJson;

namespace {

using Steps = std::vector<std::string>;

/// What each step prints for `ids`, then what finish() prints.
Steps steps(const Tokenizer &tok, const std::vector<int> &ids) {
  std::unique_ptr<Detokenizer> detokenizer = tok.detokenizer();
  Steps out;
  for (int id : ids)
    out.push_back(detokenizer->step(id));
  out.push_back(detokenizer->finish());
  return out;
}

std::string wholeDecode(const Tokenizer &tok, const std::vector<int> &ids) {
  return static_cast<const hf::HfTokenizer &>(tok).decodeIds(ids, true);
}

std::unique_ptr<Tokenizer> build(const std::string &json,
                                 const std::string &config = "") {
  std::string error;
  std::unique_ptr<Tokenizer> tok = loadHf(json, config, error);
  EXPECT_TRUE(tok) << error;
  return tok;
}

/// A Mistral-style SentencePiece BPE: <unk> <s> </s>, the 256 <0xXX>
/// tokens (ids 3..258), then `pieces`; Metaspace decoding.
std::string spmStyle(const std::vector<std::string> &pieces) {
  std::string vocab = R"("<unk>": 0, "<s>": 1, "</s>": 2)";
  for (int byte = 0; byte < 256; ++byte) {
    char name[16];
    std::snprintf(name, sizeof(name), "<0x%02X>", byte);
    vocab += ", \"" + std::string(name) + "\": " + std::to_string(3 + byte);
  }
  for (size_t i = 0; i < pieces.size(); ++i)
    vocab += ", \"" + pieces[i] + "\": " + std::to_string(259 + i);
  std::string model = R"({"type": "BPE", "vocab": {)" + vocab +
                      R"(}, "merges": [], "unk_token": "<unk>",
                          "byte_fallback": true})";
  std::string added = R"([{"id": 1, "content": "<s>", "special": true},
                          {"id": 2, "content": "</s>", "special": true}])";
  return tokenizerJson(
      model, "null",
      R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first",
          "split": false})",
      "null",
      R"({"type": "Sequence", "decoders": [{"type": "ByteFallback"},
          {"type": "Metaspace", "replacement": "▁",
           "prepend_scheme": "first", "split": false}]})",
      added);
}

TEST(HfDetokenizer, MetaspaceDropsOnlyTheFirstLeadingSpace) {
  auto tok = build(spmStyle({"▁Hello", "▁world", "!"}));
  ASSERT_TRUE(tok);
  std::vector<int> ids = {1, 259, 260, 261, 2};
  EXPECT_EQ(steps(*tok, ids), (Steps{"", "Hello", " world", "!", "", ""}));
  EXPECT_EQ(streamDecode(*tok, ids), wholeDecode(*tok, ids));
  EXPECT_EQ(wholeDecode(*tok, ids), "Hello world!");
}

TEST(HfDetokenizer, ByteFallbackCharactersPrintWhenComplete) {
  auto tok = build(spmStyle({"▁caf", "▁x"}));
  ASSERT_TRUE(tok);
  // "▁café" as ▁caf + <0xC3> <0xA9>, then 😀 (F0 9F 98 80) and " x".
  std::vector<int> ids = {259,      3 + 0xC3, 3 + 0xA9, 3 + 0xF0,
                          3 + 0x9F, 3 + 0x98, 3 + 0x80, 260};
  EXPECT_EQ(steps(*tok, ids), (Steps{"caf", "", "\xC3\xA9", "", "", "",
                                     "\xF0\x9F\x98\x80", " x", ""}));
  EXPECT_EQ(streamDecode(*tok, ids), wholeDecode(*tok, ids));
  // A character the sequence never completes prints as U+FFFD at the end,
  // as the whole decode prints it.
  std::vector<int> cut = {259, 3 + 0xE2, 3 + 0x82};
  EXPECT_EQ(steps(*tok, cut), (Steps{"caf", "", "", "\xEF\xBF\xBD"}));
  EXPECT_EQ(streamDecode(*tok, cut), wholeDecode(*tok, cut));
}

TEST(HfDetokenizer, ByteLevelCharactersSplitOverTokens) {
  // One token per byte symbol (GPT-2's alphabet), plus "Ġhi" and "Ġh".
  std::string vocab;
  for (int byte = 0; byte < 256; ++byte) {
    vocab += byte ? ", " : "";
    hf::appendJsonString(
        vocab, unicode::toUtf8(std::u32string(
                   1, byteLevelChar(static_cast<unsigned char>(byte)))));
    vocab += ": " + std::to_string(byte);
  }
  vocab += R"(, "Ġhi": 256, "<|endoftext|>": 257, "Ġh": 258)";
  auto tok = build(tokenizerJson(
      R"({"type": "BPE", "vocab": {)" + vocab +
          R"(}, "merges": ["Ġ h", "Ġh i"]})",
      "null",
      R"({"type": "ByteLevel", "add_prefix_space": false, "use_regex": true})",
      "null", R"({"type": "ByteLevel"})",
      R"([{"id": 257, "content": "<|endoftext|>", "special": true}])"));
  ASSERT_TRUE(tok);
  std::vector<int> ids = {256, 0xE4, 0xB8, 257, 0xAD, 256};
  // 中 (E4 B8 AD) is split by a special token, which prints nothing.
  EXPECT_EQ(steps(*tok, ids),
            (Steps{" hi", "", "", "", "\xE4\xB8\xAD", " hi", ""}));
  EXPECT_EQ(streamDecode(*tok, ids), wholeDecode(*tok, ids));
  EXPECT_EQ(tok->encode(" hi\xE4\xB8\xAD", false),
            (std::vector<int>{256, 0xE4, 0xB8, 0xAD}));
}

TEST(HfDetokenizer, WordPieceJoinsContinuationsAndCleansUp) {
  std::string model = R"({"type": "WordPiece", "unk_token": "[UNK]",
      "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
      "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##aff": 4,
                "##able": 5, "is": 6, ",": 7, "ok": 8, "'": 9, "s": 10}})";
  std::string added = R"([{"id": 1, "content": "[CLS]", "special": true},
                          {"id": 2, "content": "[SEP]", "special": true}])";
  auto tok =
      build(tokenizerJson(model, "null", R"({"type": "BertPreTokenizer"})",
                          R"({"type": "BertProcessing", "cls": ["[CLS]", 1],
                        "sep": ["[SEP]", 2]})",
                          R"({"type": "WordPiece", "prefix": "##",
                        "cleanup": true})",
                          added),
            R"({"clean_up_tokenization_spaces": true})");
  ASSERT_TRUE(tok);
  std::vector<int> ids = tok->encode("unaffable, is ok's", true);
  EXPECT_EQ(ids, (std::vector<int>{1, 3, 4, 5, 7, 6, 8, 9, 10, 2}));
  std::string whole = wholeDecode(*tok, ids);
  EXPECT_EQ(whole, "unaffable, is ok's");
  EXPECT_EQ(streamDecode(*tok, ids), whole);
  // Continuations join their word; the clean-up holds a space back until
  // the next text shows whether it goes (" ," and " 's" lose theirs).
  EXPECT_EQ(steps(*tok, ids), (Steps{"", "un", "aff", "able", ",", " is", " ok",
                                     "", "'s", "", ""}));
}

TEST(HfDetokenizer, PairwiseKindsStillStreamThroughTheInterface) {
  // The default Detokenizer of "spm"/"gpt2-bpe" prints decode(prev, id).
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>", " a", "b"};
  std::string blob = spmBlobFromPieces(pieces, {0, 0, 0, -1, -2});
  std::string error;
  auto tok = loadTokenizer("spm", blob, 1, 2, error);
  ASSERT_TRUE(tok) << error;
  EXPECT_EQ(steps(*tok, {1, 3, 4, 3}), (Steps{"", "a", "b", " a", ""}));
}

} // namespace
