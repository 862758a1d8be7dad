//===- HfNormalizerTest.cpp - tokenizer.json normalizers ------------------===//
//
// Expected values follow the Rust tokenizers (and Python's unicodedata for
// the normalization forms).
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "HfTestSupport.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace tfm::rt;
using namespace tfm::rt::hf;
using tfm::rt::test::json;
using tfm::rt::test::u32;

namespace {

std::string normalized(const std::string &config, const std::string &text) {
  std::string error;
  auto normalizer = createNormalizer(json(config), "normalizer", error);
  EXPECT_TRUE(normalizer) << error;
  if (!normalizer)
    return "<error>";
  std::u32string cps = u32(text);
  EXPECT_TRUE(normalizer->normalize(cps, error)) << error;
  return unicode::toUtf8(cps);
}

TEST(HfNormalizer, UnicodeForms) {
  EXPECT_EQ(normalized(R"({"type": "NFC"})",
                       "e\xCC\x81 \xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB"),
            "\xC3\xA9 \xED\x95\x9C"); // é, 한 from jamo
  EXPECT_EQ(normalized(R"({"type": "NFD"})", "\xC3\xA9\xED\x95\x9C"),
            "e\xCC\x81\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB");
  // Canonical ordering: dot below (220) before dot above (230).
  EXPECT_EQ(normalized(R"({"type": "NFD"})", "q\xCC\x87\xCC\xA3"),
            "q\xCC\xA3\xCC\x87");
  EXPECT_EQ(normalized(R"({"type": "NFKC"})",
                       "\xEF\xAC\x81 x\xC2\xB2 \xE2\x91\xA0 \xEF\xBC\xA6"),
            "fi x2 1 F");
  EXPECT_EQ(normalized(R"({"type": "NFKD"})", "\xC7\x84"), "DZ\xCC\x8C");
  // A composition exclusion stays decomposed under NFC.
  EXPECT_EQ(normalized(R"({"type": "NFC"})", "\xE0\xA5\x98"),
            "\xE0\xA4\x95\xE0\xA4\xBC");
}

TEST(HfNormalizer, LowercaseMapsEachCodePointAlone) {
  EXPECT_EQ(normalized(R"({"type": "Lowercase"})", "\xC4\xB0STANBUL \xCE\xA3"),
            "i\xCC\x87stanbul \xCF\x83");
}

TEST(HfNormalizer, StripAccentsRemovesMarksOnly) {
  EXPECT_EQ(normalized(R"({"type": "StripAccents"})", "e\xCC\x81 \xC3\xA9"),
            "e \xC3\xA9");
  EXPECT_EQ(normalized(R"({"type": "Sequence", "normalizers": [
                {"type": "NFD"}, {"type": "StripAccents"}, {"type": "NFC"}]})",
                       "Cr\xC3\xA8me"),
            "Creme");
}

TEST(HfNormalizer, StripPrependReplace) {
  EXPECT_EQ(normalized(R"({"type": "Strip", "strip_left": true,
                          "strip_right": false})",
                       " \xE3\x80\x80 a  "),
            "a  ");
  EXPECT_EQ(normalized(R"({"type": "Prepend", "prepend": "\u2581"})", "hi"),
            "\xE2\x96\x81hi");
  EXPECT_EQ(normalized(R"({"type": "Prepend", "prepend": "\u2581"})", ""), "");
  EXPECT_EQ(normalized(R"({"type": "Replace", "pattern": {"Regex": " {2,}"},
                          "content": " "})",
                       "a   b  c d"),
            "a b c d");
  EXPECT_EQ(normalized(R"({"type": "Replace", "pattern": {"String": " "},
                          "content": "\u2581"})",
                       "a b"),
            "a\xE2\x96\x81"
            "b");
}

// SentencePiece's NMT rules (transformers 5.x writes them into T5's
// tokenizer.json as Sequence[Nmt, NFKC, Replace]): the table is the Rust
// tokenizers' definition, each rule checked.
TEST(HfNormalizer, Nmt) {
  // Controls removed: U+0001, U+0008, U+000B, U+000E, U+001F, U+007F,
  // U+008F, U+009F; U+0000, U+0080 and U+0090 are kept.
  std::string controls = std::string("a\x01\x08\x0B\x0E\x1F\x7F") +
                         "\xC2\x8F\xC2\x9F" + "b" + std::string(1, '\0') +
                         "\xC2\x80\xC2\x90";
  EXPECT_EQ(normalized(R"({"type": "Nmt"})", controls),
            "ab" + std::string(1, '\0') + "\xC2\x80\xC2\x90");
  // To a space: tab, LF, FF, CR, U+1680, U+200B..U+200F, U+2028, U+2029,
  // U+2581, U+FEFF, U+FFFD; U+2010 and U+00A0 are left.
  EXPECT_EQ(normalized(R"({"type": "Nmt"})",
                       "\t\n\x0C\r\xE1\x9A\x80\xE2\x80\x8B\xE2\x80\x8F"
                       "\xE2\x80\xA8\xE2\x80\xA9\xE2\x96\x81\xEF\xBB\xBF"
                       "\xEF\xBF\xBDx\xE2\x80\x90\xC2\xA0"),
            std::string(12, ' ') + "x\xE2\x80\x90\xC2\xA0");
}

// A Replace that would grow a text without bound is an error, found before
// the text is built: one character to 10,000 over a 20,000-character prompt
// would be 200 million characters (800 MB).
TEST(HfNormalizer, ReplaceGrowthIsBounded) {
  std::string error;
  std::string config = R"({"type": "Replace", "pattern": {"String": "a"},
                           "content": ")" +
                       std::string(10000, 'b') + R"("})";
  auto normalizer = createNormalizer(json(config), "normalizer", error);
  ASSERT_TRUE(normalizer) << error;
  std::u32string text(20000, U'a');
  EXPECT_FALSE(normalizer->normalize(text, error));
  EXPECT_EQ(error, "a Replace grows the text from 20000 to 200000000 "
                   "characters, more than 64 times");
  EXPECT_EQ(text.size(), 20000u) << "the text is left as it was";
  // A short text may still grow past 64 times, up to 65536 characters.
  std::u32string shortText(3, U'a');
  EXPECT_TRUE(normalizer->normalize(shortText, error)) << error;
  EXPECT_EQ(shortText.size(), 30000u);
}

TEST(HfNormalizer, BertCleansSpacesChineseAccentsAndCase) {
  std::string text = std::string("H\xC3\xA9llo\tW\xC3\xB6rld") + '\0' +
                     "\xE2\x80\x8B\xE4\xB8\xAD\xE6\x96\x87";
  EXPECT_EQ(normalized(R"({"type": "BertNormalizer", "clean_text": true,
                          "handle_chinese_chars": true, "strip_accents": null,
                          "lowercase": true})",
                       text),
            "hello world \xE4\xB8\xAD  \xE6\x96\x87 ");
  // Cased, accents kept: strip_accents follows lowercase when null.
  EXPECT_EQ(normalized(R"({"type": "BertNormalizer", "clean_text": false,
                          "handle_chinese_chars": false, "lowercase": false})",
                       "H\xC3\xA9"),
            "H\xC3\xA9");
}

//===-- Precompiled -------------------------------------------------------===//

/// Builds a darts-clone double array for `entries` (key -> value), the
/// layout SentencePiece's precompiled charsmap stores.
std::vector<uint32_t>
doubleArray(const std::map<std::string, uint32_t> &entries) {
  struct TrieNode {
    std::map<unsigned char, int> children;
    int64_t value = -1;
  };
  std::vector<TrieNode> nodes(1);
  for (const auto &[key, value] : entries) {
    int node = 0;
    for (unsigned char c : key) {
      auto it = nodes[node].children.find(c);
      if (it == nodes[node].children.end()) {
        nodes.emplace_back();
        it = nodes[node].children.emplace(c, int(nodes.size()) - 1).first;
      }
      node = it->second;
    }
    nodes[node].value = value;
  }
  std::vector<uint32_t> units(4096, 0);
  std::vector<bool> used(units.size(), false);
  used[0] = true;
  // Each base serves one node, as in darts-clone: two nodes sharing a base
  // would let a lookup from one reach the other's children.
  std::vector<bool> baseTaken(units.size(), false);
  // Places `node` (reached at `pos`) and its subtree.
  std::function<void(int, size_t, unsigned char, bool)> place =
      [&](int node, size_t pos, unsigned char label, bool isRoot) {
        const TrieNode &n = nodes[node];
        size_t base = 1;
        auto fits = [&](size_t b) {
          if (baseTaken[b] || (n.value >= 0 && used[b]))
            return false;
          for (const auto &child : n.children)
            if (used[b ^ child.first])
              return false;
          return true;
        };
        while (!fits(base))
          ++base;
        baseTaken[base] = true;
        uint32_t offset = static_cast<uint32_t>(pos ^ base);
        units[pos] = (offset << 10) | (n.value >= 0 ? 1u << 8 : 0) |
                     (isRoot ? 0 : label);
        if (n.value >= 0) {
          used[base] = true;
          units[base] = static_cast<uint32_t>(n.value) | (1u << 31);
        }
        for (const auto &child : n.children)
          used[base ^ child.first] = true;
        for (const auto &child : n.children)
          place(child.second, base ^ child.first, child.first, false);
      };
  place(0, 0, 0, true);
  return units;
}

std::string base64(const std::string &bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = 0;
    size_t n = std::min<size_t>(3, bytes.size() - i);
    for (size_t k = 0; k < 3; ++k)
      chunk =
          (chunk << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0);
    for (size_t k = 0; k < 4; ++k)
      out += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::string charsmap(const std::map<std::string, std::string> &rules) {
  std::string normalizedBlob;
  std::map<std::string, uint32_t> entries;
  for (const auto &[from, to] : rules) {
    entries[from] = static_cast<uint32_t>(normalizedBlob.size());
    normalizedBlob += to;
    normalizedBlob += '\0';
  }
  std::vector<uint32_t> units = doubleArray(entries);
  uint32_t size = static_cast<uint32_t>(units.size() * 4);
  std::string bytes(reinterpret_cast<const char *>(&size), 4);
  bytes.append(reinterpret_cast<const char *>(units.data()), size);
  return base64(bytes + normalizedBlob);
}

TEST(HfNormalizer, PrecompiledRewritesGraphemesThenCodePoints) {
  std::string map = charsmap({{"\xEF\xBD\x81", "a"},     // fullwidth a
                              {"e\xCC\x81", "\xC3\xA9"}, // e + acute
                              {"\xE2\x80\x8B", " "}});   // zero-width space
  std::string config =
      R"({"type": "Precompiled", "precompiled_charsmap": ")" + map + "\"}";
  EXPECT_EQ(normalized(config, "\xEF\xBD\x81"
                               "be\xCC\x81"
                               "c\xE2\x80\x8Bz"),
            "ab\xC3\xA9"
            "c z");
  // A grapheme of 6 bytes or more goes code point by code point.
  EXPECT_EQ(normalized(config, "e\xCC\x81\xCC\x81\xCC\x81"),
            "e\xCC\x81\xCC\x81\xCC\x81");
  // A shorter one is replaced whole by its shortest key found, as
  // spm_precompiled does (the second accent goes with it).
  EXPECT_EQ(normalized(config, "e\xCC\x81\xCC\x81"), "\xC3\xA9");
  EXPECT_EQ(normalized(config, "plain"), "plain");
}

TEST(HfNormalizer, PrecompiledRejectsABrokenCharsmap) {
  std::string error;
  EXPECT_FALSE(createNormalizer(
      json(R"({"type": "Precompiled", "precompiled_charsmap": "!!"})"),
      "normalizer", error));
  EXPECT_EQ(error, "'normalizer.precompiled_charsmap' is not valid base64");
  EXPECT_FALSE(createNormalizer(
      json(R"({"type": "Precompiled", "precompiled_charsmap": "/////w=="})"),
      "normalizer", error));
  EXPECT_EQ(error, "'normalizer.precompiled_charsmap' is truncated or has an "
                   "invalid trie size");
}

} // namespace
