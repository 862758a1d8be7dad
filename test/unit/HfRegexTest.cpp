//===- HfRegexTest.cpp - The tokenizer regex engine -----------------------===//
//
// Expected matches are Oniguruma's (Rust tokenizers), which for these
// patterns agree with @huggingface/tokenizers' JavaScript translation.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Regex.h"

#include "HfTestSupport.h"

#include <gtest/gtest.h>

using namespace tfm::rt;
using namespace tfm::rt::hf;
using tfm::rt::test::u32;

namespace {

using Strings = std::vector<std::string>;

Strings matches(const std::string &pattern, const std::string &text) {
  std::string error;
  std::unique_ptr<Regex> re = Regex::compile(pattern, error);
  EXPECT_TRUE(re) << pattern << ": " << error;
  if (!re)
    return {};
  std::u32string cps = u32(text);
  std::vector<Span> spans;
  EXPECT_TRUE(re->findAll(cps, spans, error)) << error;
  Strings out;
  for (const Span &s : spans)
    out.push_back(unicode::toUtf8(
        std::u32string_view(cps).substr(s.begin, s.end - s.begin)));
  return out;
}

std::string compileError(const std::string &pattern) {
  std::string error;
  EXPECT_FALSE(Regex::compile(pattern, error)) << pattern;
  return error;
}

constexpr const char *kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

TEST(HfRegex, Qwen2PatternSplitsLikeOniguruma) {
  EXPECT_EQ(matches(kQwen2, "Hello world's 123 ABC'LL  x\n\n y"),
            (Strings{"Hello", " world", "'s", " ", "1", "2", "3", " ABC", "'LL",
                     " ", " x", "\n\n", " y"}));
  EXPECT_EQ(matches(kQwen2, "caf\xC3\xA9!!\n"),
            (Strings{"caf\xC3\xA9", "!!\n"}));
}

TEST(HfRegex, GreedyLazyAndCountedRepetition) {
  EXPECT_EQ(matches("a+?", "aaa"), (Strings{"a", "a", "a"}));
  EXPECT_EQ(matches("a{2,3}", "aaaaaaa"), (Strings{"aaa", "aaa"}));
  EXPECT_EQ(matches("a{2}", "aaaaa"), (Strings{"aa", "aa"}));
  EXPECT_EQ(matches("a{,2}b", "aaab"), (Strings{"aab"}));
  EXPECT_EQ(matches("\\p{N}{1,3}", "12345"), (Strings{"123", "45"}));
  EXPECT_EQ(matches("x{a}", "x{a}"), (Strings{"x{a}"})); // a literal brace
  EXPECT_EQ(matches("<.*?>", "<a><b>"), (Strings{"<a>", "<b>"}));
}

TEST(HfRegex, LookaheadAtomicAndPossessive) {
  EXPECT_EQ(matches("\\s+(?!\\S)|\\s+", "a   b"), (Strings{"  ", " "}));
  EXPECT_EQ(matches("a(?=b)", "abac"), (Strings{"a"}));
  // Atomic and possessive groups never give characters back.
  EXPECT_TRUE(matches("(?>a+)a", "aaa").empty());
  EXPECT_TRUE(matches("a++a", "aaa").empty());
  EXPECT_EQ(matches("a+a", "aaa"), (Strings{"aaa"}));
}

TEST(HfRegex, ClassesNestIntersectAndNegate) {
  // BLOOM's class: not '(' , space, '|', one of the nested set, or ')'.
  EXPECT_EQ(matches(" ?[^(\\s|[.,!?])]+", "hi, you(x)|y"),
            (Strings{"hi", " you", "x", "y"}));
  EXPECT_EQ(matches("[a-z&&[^aeiou]]+", "banana"), (Strings{"b", "n", "n"}));
  EXPECT_EQ(matches("[\\p{Lu}\\d]+", "abCD12ef"), (Strings{"CD12"}));
  EXPECT_EQ(matches("\\P{L}+", "ab12!c"), (Strings{"12!"}));
  EXPECT_EQ(matches("[\\x{4E00}-\\x{9FFF}]+", "a\xE4\xB8\xAD\xE6\x96\x87z"),
            (Strings{"\xE4\xB8\xAD\xE6\x96\x87"}));
  EXPECT_EQ(matches("[]a]+", "a]b"), (Strings{"a]"}));
}

TEST(HfRegex, CaseInsensitiveGroupsAndFlags) {
  EXPECT_EQ(matches("(?i:'s|'ll)", "'S 'Ll 's"), (Strings{"'S", "'Ll", "'s"}));
  // An isolated option reaches to the end of its group: a(?i:b|c).
  EXPECT_EQ(matches("a(?i)b|c", "aB C c aC"), (Strings{"aB", "aC"}));
  EXPECT_EQ(matches("(?i:[a-c]+)", "xAbCx"), (Strings{"AbC"}));
}

TEST(HfRegex, AnchorsAndBoundaries) {
  EXPECT_EQ(matches("^a", "a\na"), (Strings{"a", "a"}));
  EXPECT_EQ(matches("a$", "a\na"), (Strings{"a", "a"}));
  EXPECT_EQ(matches("\\Aa", "a\na"), (Strings{"a"}));
  EXPECT_EQ(matches("a\\z", "a\na"), (Strings{"a"}));
  EXPECT_EQ(matches("a\\Z", "aa\n"), (Strings{"a"}));
  EXPECT_EQ(matches("\\bx\\w*", "x ax xb"), (Strings{"x", "xb"}));
  EXPECT_EQ(matches(".", "a\nb"), (Strings{"a", "b"}));
}

TEST(HfRegex, EmptyMatchesAdvanceAndNeverLoop) {
  // As Rust's onig find_iter: an empty match right after a match is skipped.
  EXPECT_EQ(matches("a*", "baa"), (Strings{"", "aa"}));
  EXPECT_EQ(matches("(a*)*b", "aab"), (Strings{"aab"}));
  EXPECT_EQ(matches("(a|)+c", "aac"), (Strings{"aac"}));
}

TEST(HfRegex, StepBudgetStopsCatastrophicBacktracking) {
  std::string error;
  auto re = Regex::compile("(a|a)*b", error);
  ASSERT_TRUE(re) << error;
  std::u32string text(40, U'a');
  std::vector<Span> spans;
  EXPECT_FALSE(re->findAll(text, spans, error));
  EXPECT_NE(error.find("exceeded its step budget"), std::string::npos) << error;
}

TEST(HfRegex, LongRunsNeedNoRecursion) {
  std::u32string text(200000, U'x');
  text += U" y";
  std::string error;
  auto re = Regex::compile("\\p{L}+|\\s+(?!\\S)|\\s+", error);
  std::vector<Span> spans;
  ASSERT_TRUE(re->findAll(text, spans, error)) << error;
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].end, 200000u);
}

TEST(HfRegex, RejectsUnsupportedSyntaxByName) {
  EXPECT_EQ(compileError("(a)\\1"), "unsupported escape '\\1' at offset 4");
  EXPECT_EQ(compileError("(?<=a)b"), "lookbehind is not supported at offset 1");
  EXPECT_EQ(compileError("(?x)a"), "unsupported group '(?x' at offset 1");
  EXPECT_EQ(compileError("\\p{Han}"),
            "unsupported Unicode property 'han' at offset 7");
  EXPECT_EQ(compileError("[[:alpha:]]"),
            "POSIX bracket expressions are not supported at offset 1");
  EXPECT_EQ(compileError("[abc"), "unterminated character class at offset 0");
  EXPECT_EQ(compileError("*a"), "nothing to repeat before '*' at offset 0");
  EXPECT_EQ(compileError("(a"), "missing ')' at offset 2");
  EXPECT_EQ(compileError("a)"), "unmatched ')' at offset 1");
  EXPECT_EQ(compileError("[z-a]"),
            "character class range out of order at offset 4");
  EXPECT_EQ(compileError("a{1001}"), "repetition count above 1000 at offset 7");
  EXPECT_NE(compileError("(a{1000}){1000}").find("pattern is too large"),
            std::string::npos);
  EXPECT_EQ(compileError(std::string(100, '(')),
            "groups nest deeper than 64 at offset 65");
}

} // namespace
