//===- Precompiled.cpp - SentencePiece's precompiled charsmap normalizer --===//
//
// T5-style tokenizer.json files carry SentencePiece's normalization rules as
// "precompiled_charsmap": base64 of
//   u32 trie_size (bytes, little endian), trie_size / 4 u32 units of a
//   darts-clone double-array trie over UTF-8 keys, then the replacement
//   strings, each NUL-terminated, which the trie's values index.
// As in the Rust tokenizers (spm_precompiled), text is rewritten grapheme
// by grapheme: a grapheme shorter than 6 bytes found in the trie is
// replaced whole, otherwise each code point found is replaced. Grapheme
// clusters are approximated (a base, then its marks, variation selectors,
// emoji modifiers and ZWJ-joined pictographs; CR LF; regional-indicator
// pairs), which covers the common path; every lookup is bounds-checked
// against the untrusted trie.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "runtime/Unicode.h"

#include <cstring>

namespace tfm::rt::hf {

namespace {

using unicode::GeneralCategory;

bool decodeBase64(std::string_view text, std::string &out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == '+')
      return 62;
    if (c == '/')
      return 63;
    return -1;
  };
  while (!text.empty() && text.back() == '=')
    text.remove_suffix(1);
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v = value(c);
    if (v < 0)
      return false;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return true;
}

class PrecompiledNormalizer : public Normalizer {
public:
  bool load(std::string_view charsmap, const std::string &path,
            std::string &error) {
    std::string bytes;
    if (!decodeBase64(charsmap, bytes)) {
      error = "'" + path + "' is not valid base64";
      return false;
    }
    uint32_t trieSize = 0;
    if (bytes.size() < 4 ||
        (std::memcpy(&trieSize, bytes.data(), 4), trieSize % 4 != 0) ||
        trieSize == 0 || trieSize > bytes.size() - 4) {
      error = "'" + path + "' is truncated or has an invalid trie size";
      return false;
    }
    units_.resize(trieSize / 4);
    std::memcpy(units_.data(), bytes.data() + 4, trieSize);
    normalized_ = bytes.substr(4 + trieSize);
    return true;
  }

  bool normalize(std::u32string &text, std::string &) const override {
    std::u32string out;
    out.reserve(text.size());
    std::string utf8;
    for (size_t i = 0; i < text.size();) {
      size_t end = graphemeEnd(text, i);
      utf8 = unicode::toUtf8(std::u32string_view(text).substr(i, end - i));
      std::string_view replacement;
      if (utf8.size() < 6 && transform(utf8, replacement)) {
        out += unicode::toCodePoints(replacement);
      } else {
        for (size_t k = i; k < end; ++k) {
          utf8.clear();
          unicode::appendUtf8(text[k], utf8);
          if (transform(utf8, replacement))
            out += unicode::toCodePoints(replacement);
          else
            out += text[k];
        }
      }
      i = end;
    }
    text = std::move(out);
    return true;
  }

private:
  // darts-clone unit layout.
  static bool hasLeaf(uint32_t unit) { return (unit >> 8) & 1; }
  static uint32_t value(uint32_t unit) { return unit & ((1u << 31) - 1); }
  static uint32_t label(uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
  static uint32_t offset(uint32_t unit) {
    return (unit >> 10) << ((unit & (1u << 9)) >> 6);
  }

  /// The replacement of the shortest key that prefixes `key`, as
  /// spm_precompiled's transform takes the first common-prefix result.
  bool transform(std::string_view key, std::string_view &out) const {
    size_t node = offset(units_[0]);
    for (unsigned char c : key) {
      if (c == 0)
        return false;
      node ^= c;
      if (node >= units_.size())
        return false;
      uint32_t unit = units_[node];
      if (label(unit) != c)
        return false;
      node ^= offset(unit);
      if (node >= units_.size())
        return false;
      if (hasLeaf(unit))
        return replacementAt(value(units_[node]), out);
    }
    return false;
  }

  bool replacementAt(uint32_t index, std::string_view &out) const {
    if (index >= normalized_.size())
      return false;
    size_t end = normalized_.find('\0', index);
    if (end == std::string::npos)
      end = normalized_.size();
    out = std::string_view(normalized_).substr(index, end - index);
    return true;
  }

  /// The end of the (approximate) grapheme cluster starting at `i`.
  static size_t graphemeEnd(const std::u32string &text, size_t i) {
    size_t n = text.size();
    char32_t first = text[i++];
    if (first == '\r' && i < n && text[i] == '\n')
      return i + 1;
    bool regional = first >= 0x1F1E6 && first <= 0x1F1FF;
    if (regional && i < n && text[i] >= 0x1F1E6 && text[i] <= 0x1F1FF)
      return i + 1;
    while (i < n) {
      char32_t cp = text[i];
      GeneralCategory c = unicode::category(cp);
      bool extend = c == GeneralCategory::Mn || c == GeneralCategory::Me ||
                    c == GeneralCategory::Mc ||
                    (cp >= 0x1F3FB && cp <= 0x1F3FF);
      if (extend) {
        ++i;
      } else if (cp == 0x200D) {
        ++i;
        if (i < n && unicode::category(text[i]) == GeneralCategory::So)
          ++i;
      } else {
        break;
      }
    }
    return i;
  }

  std::vector<uint32_t> units_;
  std::string normalized_;
};

} // namespace

std::unique_ptr<Normalizer> createPrecompiled(std::string_view charsmap,
                                              const std::string &path,
                                              std::string &error) {
  auto normalizer = std::make_unique<PrecompiledNormalizer>();
  if (!normalizer->load(charsmap, path, error))
    return nullptr;
  return normalizer;
}

} // namespace tfm::rt::hf
