//===- HfModelTest.cpp - tokenizer.json models, decoders, post-processors -===//
//
// The options the lit comparisons with @huggingface/tokenizers leave out
// (continuing_subword_prefix, end_of_word_suffix, ignore_merges, fuse_unk,
// WordLevel, Unigram's byte fallback, the Strip/Replace/BPEDecoder
// decoders, Bert/Roberta/Sequence post-processors), with the Rust
// tokenizers' results.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "HfTestSupport.h"

#include <gtest/gtest.h>

using namespace tfm::rt;
using namespace tfm::rt::hf;
using tfm::rt::test::json;
using tfm::rt::test::u32;

namespace {

using Ids = std::vector<int>;
using Strings = std::vector<std::string>;

Ids encodeWith(const std::string &config, const std::string &piece) {
  std::string error;
  auto model = createModel(json(config), "model", error);
  EXPECT_TRUE(model) << error;
  Ids ids;
  if (model)
    model->encode(u32(piece), ids);
  return ids;
}

std::string bpe(const std::string &options) {
  return R"({"type": "BPE", "unk_token": "[UNK]",
             "continuing_subword_prefix": "##",
             "vocab": {"a": 0, "##b": 1, "##c": 2, "ab": 3, "abc": 4,
                       "[UNK]": 5, "x": 6},
             "merges": )" +
         options + "}";
}

TEST(HfModel, BpeWithContinuingSubwordPrefix) {
  std::string merges = R"(["a ##b", "ab ##c"])";
  EXPECT_EQ(encodeWith(bpe(merges), "abc"), (Ids{4}));
  EXPECT_EQ(encodeWith(bpe(merges), "ab"), (Ids{3}));
  // "##d" and "##x" are unknown: one [UNK] each, or one for the run with
  // fuse_unk.
  EXPECT_EQ(encodeWith(bpe(merges), "abdx"), (Ids{3, 5, 5}));
  EXPECT_EQ(encodeWith(bpe(merges + R"(, "fuse_unk": true)"), "abdx"),
            (Ids{3, 5}));
}

TEST(HfModel, BpeIgnoreMergesTakesWholeWordsFromTheVocabulary) {
  EXPECT_EQ(encodeWith(bpe("[]"), "abc"), (Ids{0, 1, 2}));
  EXPECT_EQ(encodeWith(bpe(R"([], "ignore_merges": true)"), "abc"), (Ids{4}));
  EXPECT_EQ(encodeWith(bpe(R"([], "ignore_merges": true)"), "ab"), (Ids{3}));
}

TEST(HfModel, BpeEndOfWordSuffix) {
  std::string model = R"({"type": "BPE", "end_of_word_suffix": "</w>",
      "vocab": {"a": 0, "b</w>": 1, "ab</w>": 2, "b": 3},
      "merges": ["a b</w>"]})";
  EXPECT_EQ(encodeWith(model, "ab"), (Ids{2}));
  // "a</w>" is no token and there is no unk_token: Rust drops it.
  EXPECT_EQ(encodeWith(model, "ba"), (Ids{3}));
}

TEST(HfModel, BpeMergesByRankNotByPosition) {
  // The best-ranked pair merges first wherever it is: "a b" ranks above
  // "b c", so abc -> [ab, c] and bcab -> [bc, ab].
  std::string model = R"({"type": "BPE",
      "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4},
      "merges": ["a b", "b c"]})";
  EXPECT_EQ(encodeWith(model, "abc"), (Ids{3, 2}));
  EXPECT_EQ(encodeWith(model, "bcab"), (Ids{4, 3}));
}

TEST(HfModel, WordLevelAndWordPiece) {
  std::string wordLevel = R"({"type": "WordLevel", "unk_token": "[UNK]",
      "vocab": {"hi": 0, "[UNK]": 1}})";
  EXPECT_EQ(encodeWith(wordLevel, "hi"), (Ids{0}));
  EXPECT_EQ(encodeWith(wordLevel, "there"), (Ids{1}));
  std::string wordPiece = R"({"type": "WordPiece", "unk_token": "[UNK]",
      "max_input_chars_per_word": 5,
      "vocab": {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "a": 4}})";
  EXPECT_EQ(encodeWith(wordPiece, "unaff"), (Ids{1, 2}));
  // A word that does not split into pieces, or is too long, is one [UNK].
  EXPECT_EQ(encodeWith(wordPiece, "unx"), (Ids{0}));
  EXPECT_EQ(encodeWith(wordPiece, "unaffable"), (Ids{0}));
}

TEST(HfModel, UnigramViterbiUnknownsAndByteFallback) {
  std::string unigram = R"({"type": "Unigram", "unk_id": 0,
      "vocab": [["<unk>", 0], ["a", -1], ["b", -2], ["ab", -1.5],
                ["c", -10]]})";
  EXPECT_EQ(encodeWith(unigram, "ab"), (Ids{3}));
  EXPECT_EQ(encodeWith(unigram, "abc"), (Ids{3, 4}));
  // Unknown characters become <unk>, a run of them one <unk>.
  EXPECT_EQ(encodeWith(unigram, "addb"), (Ids{1, 0, 2}));
  std::string withBytes = R"({"type": "Unigram", "unk_id": 0,
      "byte_fallback": true,
      "vocab": [["<unk>", 0], ["a", -1], ["<0xC3>", -5], ["<0xA9>", -5]]})";
  EXPECT_EQ(encodeWith(withBytes, "a\xC3\xA9"), (Ids{1, 2, 3}));
  // A character whose bytes are not all tokens stays <unk>.
  EXPECT_EQ(encodeWith(withBytes, "a\xC3\xA8"), (Ids{1, 0}));
}

Strings decodeWith(const std::string &config, Strings tokens) {
  std::string error;
  auto decoder = createDecoder(json(config), "decoder", error);
  EXPECT_TRUE(decoder) << error;
  if (decoder)
    decoder->decodeChain(tokens, DecodeContext());
  return tokens;
}

std::string joined(const Strings &pieces) {
  std::string out;
  for (const std::string &piece : pieces)
    out += piece;
  return out;
}

TEST(HfDecoder, StripReplaceFuseAndBpeDecoder) {
  EXPECT_EQ(joined(decodeWith(R"({"type": "Strip", "content": " ",
                                  "start": 1, "stop": 0})",
                              {" a", "  b", "c"})),
            "a bc");
  EXPECT_EQ(joined(decodeWith(R"({"type": "Replace",
                                  "pattern": {"String": "▁"},
                                  "content": " "})",
                              {"▁Hey", "▁you"})),
            " Hey you");
  EXPECT_EQ(decodeWith(R"({"type": "Fuse"})", {"a", "b", "c"}),
            (Strings{"abc"}));
  EXPECT_EQ(joined(decodeWith(R"({"type": "BPEDecoder", "suffix": "</w>"})",
                              {"hel", "lo</w>", "there</w>"})),
            "hello there");
  EXPECT_EQ(joined(decodeWith(R"({"type": "ByteFallback"})",
                              {"<0xC3>", "<0xA9>", "x", "<0xFF>"})),
            "\xC3\xA9x\xEF\xBF\xBD");
}

Ids processWith(const std::string &config, Ids ids, bool addSpecial) {
  std::string error;
  auto processor = createPostProcessor(json(config), "post_processor", error);
  EXPECT_TRUE(processor) << error;
  if (processor)
    processor->process(ids, addSpecial);
  return ids;
}

TEST(HfPostProcessor, AddsSpecialTokensOnlyWhenAsked) {
  std::string bert = R"({"type": "BertProcessing", "cls": ["[CLS]", 101],
                         "sep": ["[SEP]", 102]})";
  EXPECT_EQ(processWith(bert, {7, 8}, true), (Ids{101, 7, 8, 102}));
  EXPECT_EQ(processWith(bert, {7, 8}, false), (Ids{7, 8}));
  EXPECT_EQ(processWith(R"({"type": "RobertaProcessing", "cls": ["<s>", 0],
                            "sep": ["</s>", 2], "trim_offsets": true,
                            "add_prefix_space": false})",
                        {7}, true),
            (Ids{0, 7, 2}));
  EXPECT_EQ(processWith(R"({"type": "Sequence", "processors": [
                              {"type": "ByteLevel", "trim_offsets": false},
                              {"type": "TemplateProcessing",
                               "single": [{"Sequence": {"id": "A"}},
                                          {"SpecialToken": {"id": "</s>"}},
                                          {"SpecialToken": {"id": "</s>"}}],
                               "special_tokens": {"</s>": {"ids": [2]}}}]})",
                        {7}, true),
            (Ids{7, 2, 2}));
}

} // namespace
