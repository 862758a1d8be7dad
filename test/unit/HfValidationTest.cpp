//===- HfValidationTest.cpp - tokenizer.json rejected at load -------------===//
//
// A tokenizer.json is untrusted input: each way it can be wrong is an error
// naming the component, key or token, raised when the blob is built (so the
// compiler reports it) and again when a produced binary loads the blob.
//
//===----------------------------------------------------------------------===//
#include "HfTestSupport.h"

#include "runtime/ByteLevel.h"
#include "runtime/hf/HfBlob.h"

#include <gtest/gtest.h>

using namespace tfm::rt;
using tfm::rt::test::loadError;
using tfm::rt::test::loadHf;
using tfm::rt::test::tokenizerJson;

namespace {

const std::string kWordLevel =
    R"({"type": "WordLevel", "vocab": {"a": 0, "b": 1, "[UNK]": 2},
        "unk_token": "[UNK]"})";

/// A vocabulary of `n` tokens "t0".."t{n-1}" as a JSON object body.
std::string vocabOf(int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out +=
        (i ? ", \"t" : "\"t") + std::to_string(i) + "\": " + std::to_string(i);
  return out;
}

TEST(HfValidation, UnsupportedComponentTypesAreNamed) {
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, R"({"type": "Nfkx"})")),
            "tokenizer.json: unsupported normalizer type 'Nfkx' in "
            "tokenizer.json (at 'normalizer')");
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null",
                                    R"({"type": "UnicodeScripts"})")),
            "tokenizer.json: unsupported pre_tokenizer type 'UnicodeScripts' "
            "in tokenizer.json (at 'pre_tokenizer')");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "Charlevel", "vocab": {}})")),
            "tokenizer.json: unsupported model type 'Charlevel' in "
            "tokenizer.json (at 'model')");
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null",
                                    R"({"type": "Mystery"})")),
            "tokenizer.json: unsupported post_processor type 'Mystery' in "
            "tokenizer.json (at 'post_processor')");
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null", "null",
                                    R"({"type": "CTC"})")),
            "tokenizer.json: unsupported decoder type 'CTC' in "
            "tokenizer.json (at 'decoder')");
  // Inside a Sequence the path names the step.
  EXPECT_EQ(
      loadError(tokenizerJson(
          kWordLevel, "null",
          R"({"type": "Sequence", "pretokenizers": [{"type": "Whitespace"},
                                                    {"type": "Odd"}]})")),
      "tokenizer.json: unsupported pre_tokenizer type 'Odd' in "
      "tokenizer.json (at 'pre_tokenizer.pretokenizers[1]')");
}

TEST(HfValidation, MalformedDocuments) {
  EXPECT_EQ(loadError("[1, 2"),
            "tokenizer.json: tokenizer.json is not valid JSON: line 1, "
            "column 6: expected ']'");
  EXPECT_EQ(loadError("{\"version\": \"1.0\"}"),
            "tokenizer.json: tokenizer.json has no \"model\"");
  EXPECT_EQ(loadError(std::string(40000, '[')),
            "tokenizer.json: tokenizer.json is not valid JSON: line 1, "
            "column 129: JSON nests deeper than 128 levels");
}

TEST(HfValidation, VocabularyIdsAreBoundedAndUnique) {
  EXPECT_EQ(loadError(tokenizerJson(
                R"({"type": "WordLevel", "vocab": {"a": 0, "b": 5000}})")),
            "tokenizer.json: 'model.vocab': token 'b' has id 5000, outside "
            "[0, 260) for a vocabulary of 2 tokens");
  EXPECT_EQ(loadError(tokenizerJson(
                R"({"type": "WordLevel", "vocab": {"a": 0, "b": -1}})")),
            "tokenizer.json: 'model.vocab': token 'b' has id -1, outside "
            "[0, 260) for a vocabulary of 2 tokens");
  EXPECT_EQ(loadError(tokenizerJson(
                R"({"type": "WordLevel", "vocab": {"a": 0, "b": 0}})")),
            "tokenizer.json: 'model.vocab': id 0 is given to both 'a' and "
            "'b'");
  EXPECT_EQ(loadError(tokenizerJson(
                R"({"type": "WordLevel", "vocab": {"a": 0, "b": 1.5}})")),
            "tokenizer.json: 'model.vocab': the id of token 'b' must be an "
            "integer, not a number");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "Unigram", "vocab": [],
                                        "unk_id": 0})")),
            "tokenizer.json: 'model.vocab' holds no pieces");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "Unigram", "vocab":
                                        [["a", -1.0]], "unk_id": 3})")),
            "tokenizer.json: 'model.unk_id' must be the id of a piece "
            "(Unigram encodes unknown characters as it)");
}

TEST(HfValidation, HugeAddedTokenIdIsRejectedBeforeAnythingIsSized) {
  // 2^24 for a vocabulary of 1000: sizing the id tables by it first would
  // allocate for 16M ids; the bound is checked before.
  std::string model = R"({"type": "WordLevel", "vocab": {)" + vocabOf(1000) +
                      R"(}, "unk_token": "t0"})";
  EXPECT_EQ(loadError(tokenizerJson(model, "null", "null", "null", "null",
                                    R"([{"id": 16777216, "content": "<x>",
                                         "special": true}])")),
            "tokenizer.json: 'added_tokens[0]': token '<x>' has id 16777216, "
            "outside [0, 2258) for a vocabulary of 1000 tokens and 1 added "
            "tokens");
  EXPECT_EQ(loadError(tokenizerJson(model, "null", "null", "null", "null",
                                    R"([{"id": 1099511627776,
                                         "content": "<x>"}])")),
            "tokenizer.json: 'added_tokens[0].id' (1099511627776) is not a "
            "token id");
  // Just past the vocabulary is fine, and so is a token the model has.
  std::string error;
  auto tok = loadHf(tokenizerJson(model, "null", "null", "null", "null",
                                  R"([{"id": 1000, "content": "<x>"},
                                      {"id": 5, "content": "t5"}])"),
                    "", error);
  ASSERT_TRUE(tok) << error;
  EXPECT_EQ(tok->vocabSize(), 1001);
  EXPECT_EQ(tok->tokenId("<x>"), 1000);
  EXPECT_EQ(tok->tokenString(1000), "<x>");
}

TEST(HfValidation, AddedTokensAgreeWithTheVocabulary) {
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null", "null", "null",
                                    R"([{"id": 2, "content": "a"}])")),
            "tokenizer.json: 'added_tokens[0]': token 'a' has id 2 but the "
            "vocabulary gives it id 0");
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null", "null", "null",
                                    R"([{"id": 1, "content": "<new>"}])")),
            "tokenizer.json: 'added_tokens[0]': id 1 is given to both 'b' "
            "and '<new>'");
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null", "null", "null",
                                    R"([{"id": 3, "content": ""}])")),
            "tokenizer.json: 'added_tokens[0].content' must not be empty");
}

TEST(HfValidation, ByteLevelVocabularyMustCoverEveryByte) {
  // GPT-2's byte symbols as tokens, all but 'x' (byte 0x78).
  std::string vocab;
  int id = 0;
  for (int byte = 0; byte < 256; ++byte) {
    if (byte == 'x')
      continue;
    std::string symbol = unicode::toUtf8(
        std::u32string(1, byteLevelChar(static_cast<unsigned char>(byte))));
    if (id)
      vocab += ", ";
    hf::appendJsonString(vocab, symbol);
    vocab += ": " + std::to_string(id);
    ++id;
  }
  std::string preTokenizer = R"({"type": "ByteLevel",
      "add_prefix_space": false, "use_regex": true})";
  std::string bpe =
      R"({"type": "BPE", "vocab": {)" + vocab + R"(}, "merges": []})";
  EXPECT_EQ(loadError(tokenizerJson(bpe, "null", preTokenizer)),
            "tokenizer.json: the byte-level BPE vocabulary has no symbol for "
            "byte 0x78 ('x') and no unk_token, so text containing that byte "
            "could not be encoded");
  // Also when ByteLevel is a step of a Sequence (Qwen2's form).
  EXPECT_EQ(loadError(tokenizerJson(bpe, "null",
                                    R"({"type": "Sequence", "pretokenizers": [
                     {"type": "Split", "pattern": {"String": " "},
                      "behavior": "Isolated", "invert": false},
                     {"type": "ByteLevel", "add_prefix_space": false,
                      "use_regex": false}]})")),
            "tokenizer.json: the byte-level BPE vocabulary has no symbol for "
            "byte 0x78 ('x') and no unk_token, so text containing that byte "
            "could not be encoded");
  // With every byte there, "xyz ab" keeps its x.
  std::string full =
      R"({"type": "BPE", "vocab": {)" + vocab + R"(, "x": 300}, "merges": []})";
  std::string error;
  auto tok = loadHf(tokenizerJson(full, "null", preTokenizer), "", error);
  ASSERT_TRUE(tok) << error;
  EXPECT_EQ(tok->encode("xyz", false).size(), 3u);
  EXPECT_EQ(tok->encode("xyz", false).front(), 300);
}

TEST(HfValidation, BpeMergesAndFallbacks) {
  const std::string vocab = R"("vocab": {"a": 0, "b": 1, "ab": 2})";
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "BPE", )" + vocab +
                                    R"(, "merges": ["a c"]})")),
            "tokenizer.json: 'model.merges[0]': 'c' is not in the vocabulary");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "BPE", )" + vocab +
                                    R"(, "merges": ["a b c"]})")),
            "tokenizer.json: 'model.merges[0]' must be two tokens separated "
            "by one space, not 'a b c'");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "BPE", )" + vocab +
                                    R"(, "merges": [["a"]]})")),
            "tokenizer.json: 'model.merges[0]' must be \"a b\" or [\"a\", "
            "\"b\"]");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "BPE", )" + vocab +
                                    R"(, "merges": [], "unk_token": "?"})")),
            "tokenizer.json: 'model.unk_token' ('?') is not in the "
            "vocabulary");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "BPE", )" + vocab +
                                    R"(, "merges": [], "dropout": 0.1})")),
            "tokenizer.json: 'model.dropout': BPE dropout (random merges) is "
            "not supported; it must be null or 0");
  EXPECT_EQ(loadError(tokenizerJson(R"({"type": "BPE", )" + vocab +
                                    R"(, "merges": [],
                                        "byte_fallback": true})")),
            "tokenizer.json: 'model' has byte_fallback but no token '<0x00>' "
            "and no unk_token, so text containing that byte could not be "
            "encoded");
  EXPECT_EQ(
      loadError(tokenizerJson(R"({"type": "WordPiece", "vocab": {"a": 0}})")),
      "tokenizer.json: 'model.unk_token' is required: WordPiece "
      "encodes unknown words as it");
}

TEST(HfValidation, PostProcessorTokensMustExist) {
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null",
                                    R"({"type": "TemplateProcessing",
                    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                               {"Sequence": {"id": "A", "type_id": 0}}],
                    "special_tokens": {}})")),
            "tokenizer.json: 'post_processor.single' uses special token "
            "'<s>', which 'post_processor.special_tokens' lacks");
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null",
                                    R"({"type": "TemplateProcessing",
                    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                               {"Sequence": {"id": "A", "type_id": 0}}],
                    "special_tokens": {"<s>": {"id": "<s>", "ids": [77],
                                               "tokens": ["<s>"]}}})")),
            "tokenizer.json: 'post_processor' adds token id 77, which is not "
            "in the vocabulary of 3 ids");
  EXPECT_EQ(
      loadError(tokenizerJson(kWordLevel, "null", "null",
                              R"({"type": "TemplateProcessing", "single": [],
                    "special_tokens": {}})")),
      "tokenizer.json: 'post_processor.single' has no $A");
  EXPECT_EQ(loadError(tokenizerJson(kWordLevel, "null", "null",
                                    R"({"type": "BertProcessing",
                                        "cls": ["[CLS]"], "sep": ["b", 1]})")),
            "tokenizer.json: 'post_processor.cls' must be [token, id]");
}

TEST(HfValidation, ConfigFactsAreChecked) {
  std::string json = tokenizerJson(kWordLevel);
  EXPECT_EQ(loadError(json, R"({"add_bos_token": "yes"})"),
            "tokenizer_config.json: 'add_bos_token' must be true or false, "
            "not a string");
  EXPECT_EQ(loadError(json, R"({"add_bos_token": true,
                               "bos_token": "<s>"})"),
            "tokenizer.json: tokenizer_config.json asks to add its bos_token "
            "('<s>'), which is not a token of tokenizer.json");
  EXPECT_EQ(loadError(json, R"({"bos_token": 7})"),
            "tokenizer_config.json: 'bos_token' must be a string or an "
            "object with \"content\", not a number");
  EXPECT_EQ(loadError(json, "{"),
            "tokenizer_config.json: line 1, column 2: expected a string key");
}

TEST(HfValidation, BrokenBlobsAndModelIds) {
  std::string blob, error;
  ASSERT_TRUE(hfBlobFromJson(tokenizerJson(kWordLevel), "", blob, error))
      << error;
  EXPECT_FALSE(loadTokenizer("hf", "TFMHF0\n", -1, -1, error));
  EXPECT_EQ(error, "hf tokenizer: hf tokenizer blob does not start with "
                   "'TFMHF1'");
  EXPECT_FALSE(loadTokenizer("hf", blob.substr(0, 9), -1, -1, error));
  EXPECT_EQ(error, "hf tokenizer: hf tokenizer blob is truncated in its "
                   "header");
  std::string longFacts = blob;
  longFacts[hf::kHfBlobMagic.size() + 3] = '\x7F';
  EXPECT_FALSE(loadTokenizer("hf", longFacts, -1, -1, error));
  EXPECT_EQ(error, "hf tokenizer: hf tokenizer blob is truncated in its "
                   "tokenizer_config facts");
  EXPECT_FALSE(loadTokenizer("hf", blob, -1, 3, error));
  EXPECT_EQ(error, "hf tokenizer: special token id 3 is outside the "
                   "tokenizer's 3 ids");
  EXPECT_TRUE(loadTokenizer("hf", blob, 0, 2, error)) << error;
}

} // namespace
