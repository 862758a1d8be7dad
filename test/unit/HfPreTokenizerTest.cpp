//===- HfPreTokenizerTest.cpp - tokenizer.json pre-tokenizers -------------===//
//
// Expected splits are those of the Rust tokenizers' own tests. Several of
// these (Split's merge behaviours, Punctuation, Digits over non-ASCII
// digits) are where @huggingface/tokenizers simplifies, so the lit tests
// against it cannot cover them.
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

using Strings = std::vector<std::string>;

/// The pieces `config` splits `text` into (a piece at the input's start).
Strings split(const std::string &config, const std::string &text) {
  std::string error;
  auto pre = createPreTokenizer(json(config), "pre_tokenizer", error);
  EXPECT_TRUE(pre) << error;
  if (!pre)
    return {"<error>"};
  std::vector<PreToken> pieces{{u32(text), /*atStart=*/true}};
  EXPECT_TRUE(pre->preTokenize(pieces, error)) << error;
  Strings out;
  for (const PreToken &piece : pieces)
    out.push_back(unicode::toUtf8(piece.text));
  return out;
}

std::string splitBy(const std::string &behavior, bool invert = false) {
  return R"({"type": "Split", "pattern": {"String": "-"}, "behavior": ")" +
         behavior + "\", \"invert\": " + (invert ? "true" : "false") + "}";
}

TEST(HfPreTokenizer, SplitHonoursEveryBehaviour) {
  const std::string text = "the-final--countdown";
  EXPECT_EQ(split(splitBy("Removed"), text),
            (Strings{"the", "final", "countdown"}));
  EXPECT_EQ(split(splitBy("Isolated"), text),
            (Strings{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(split(splitBy("MergedWithPrevious"), text),
            (Strings{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(split(splitBy("MergedWithNext"), text),
            (Strings{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(split(splitBy("Contiguous"), text),
            (Strings{"the", "-", "final", "--", "countdown"}));
}

TEST(HfPreTokenizer, SplitInvertKeepsTheMatches) {
  EXPECT_EQ(split(R"({"type": "Split", "pattern": {"Regex": "\\w+"},
                      "behavior": "Removed", "invert": true})",
                  "Hey friend!"),
            (Strings{"Hey", "friend"}));
  EXPECT_EQ(split(R"({"type": "Split", "pattern": {"Regex": "\\w+"},
                      "behavior": "Isolated", "invert": false})",
                  "Hey friend!"),
            (Strings{"Hey", " ", "friend", "!"}));
}

TEST(HfPreTokenizer, PunctuationAndDigits) {
  EXPECT_EQ(
      split(R"({"type": "Punctuation"})", "Hey friend!     How are you?!?"),
      (Strings{"Hey friend", "!", "     How are you", "?", "!", "?"}));
  EXPECT_EQ(split(R"({"type": "Punctuation", "behavior": "Contiguous"})",
                  "ok?!? yes"),
            (Strings{"ok", "?!?", " yes"}));
  EXPECT_EQ(split(R"({"type": "Digits", "individual_digits": true})",
                  "Hey 123 friend!"),
            (Strings{"Hey ", "1", "2", "3", " friend!"}));
  EXPECT_EQ(split(R"({"type": "Digits", "individual_digits": false})",
                  "Hey 123 friend!"),
            (Strings{"Hey ", "123", " friend!"}));
  // Every numeric character counts, as Rust's char::is_numeric.
  EXPECT_EQ(split(R"({"type": "Digits", "individual_digits": false})",
                  "x\xD9\xA1\xD9\xA2y"), // x١٢y
            (Strings{"x", "\xD9\xA1\xD9\xA2", "y"}));
}

TEST(HfPreTokenizer, WhitespaceKinds) {
  EXPECT_EQ(split(R"({"type": "Whitespace"})", "How are you doing?"),
            (Strings{"How", "are", "you", "doing", "?"}));
  EXPECT_EQ(split(R"({"type": "Whitespace"})", "caf\xC3\xA9 ok!?"),
            (Strings{"caf\xC3\xA9", "ok", "!?"}));
  EXPECT_EQ(split(R"({"type": "Whitespace"})", "\n"), Strings{});
  EXPECT_EQ(split(R"({"type": "WhitespaceSplit"})", "Hey  man!\t"),
            (Strings{"Hey", "man!"}));
  EXPECT_EQ(split(R"({"type": "BertPreTokenizer"})", "Hey, you're\xE3\x80\x82"),
            (Strings{"Hey", ",", "you", "'", "re", "\xE3\x80\x82"}));
}

TEST(HfPreTokenizer, MetaspacePrependSchemesAndSplit) {
  auto metaspace = [](const char *scheme, bool splitPieces) {
    return std::string(R"({"type": "Metaspace", "replacement": "▁",
                           "prepend_scheme": ")") +
           scheme + "\", \"split\": " + (splitPieces ? "true" : "false") + "}";
  };
  EXPECT_EQ(split(metaspace("always", true), "Hey friend!"),
            (Strings{"▁Hey", "▁friend!"}));
  EXPECT_EQ(split(metaspace("always", true), "  Hey friend!"),
            (Strings{"▁", "▁Hey", "▁friend!"}));
  EXPECT_EQ(split(metaspace("always", false), "Hey friend!"),
            (Strings{"▁Hey▁friend!"}));
  EXPECT_EQ(split(metaspace("never", false), "Hey friend!"),
            (Strings{"Hey▁friend!"}));
  EXPECT_EQ(split(metaspace("first", false), "Hey"), (Strings{"▁Hey"}));
  // "first" prepends only to the piece at the start of the input.
  std::string error;
  auto pre = createPreTokenizer(json(metaspace("first", false)),
                                "pre_tokenizer", error);
  ASSERT_TRUE(pre) << error;
  std::vector<PreToken> pieces{{u32("a"), true}, {u32("b"), false}};
  ASSERT_TRUE(pre->preTokenize(pieces, error)) << error;
  EXPECT_EQ(unicode::toUtf8(pieces[0].text), "▁a");
  EXPECT_EQ(unicode::toUtf8(pieces[1].text), "b");
}

TEST(HfPreTokenizer, ByteLevelPrefixSpaceAndRegex) {
  EXPECT_EQ(split(R"({"type": "ByteLevel", "add_prefix_space": true,
                      "use_regex": true})",
                  "Hello my friend, how is your day going?"),
            (Strings{"ĠHello", "Ġmy", "Ġfriend", ",", "Ġhow", "Ġis", "Ġyour",
                     "Ġday", "Ġgoing", "?"}));
  EXPECT_EQ(split(R"({"type": "ByteLevel", "add_prefix_space": true,
                      "use_regex": true})",
                  " Hi"),
            (Strings{"ĠHi"}));
  EXPECT_EQ(split(R"({"type": "ByteLevel", "add_prefix_space": false,
                      "use_regex": false})",
                  "a b\xC3\xA9"),
            (Strings{"aĠbÃ©"}));
}

TEST(HfPreTokenizer, SequenceAppliesStepsInOrder) {
  EXPECT_EQ(split(R"({"type": "Sequence", "pretokenizers": [
                        {"type": "WhitespaceSplit"},
                        {"type": "Digits", "individual_digits": true}]})",
                  "ab12 c3"),
            (Strings{"ab", "1", "2", "c", "3"}));
}

TEST(HfPreTokenizer, BadConfigurationsAreNamed) {
  std::string error;
  EXPECT_FALSE(
      createPreTokenizer(json(splitBy("Sideways")), "pre_tokenizer", error));
  EXPECT_NE(error.find("'pre_tokenizer.behavior'"), std::string::npos) << error;
  EXPECT_NE(error.find("Sideways"), std::string::npos) << error;
  EXPECT_FALSE(createPreTokenizer(
      json(R"({"type": "Split", "pattern": {"Regex": "(?<=a)b"},
               "behavior": "Isolated", "invert": false})"),
      "pre_tokenizer", error));
  EXPECT_NE(error.find("'pre_tokenizer.pattern"), std::string::npos) << error;
  EXPECT_NE(error.find("lookbehind"), std::string::npos) << error;
}

} // namespace
