//===- Normalizers.cpp - tokenizer.json "normalizer" components -----------===//
//
// Sequence, NFC, NFD, NFKC, NFKD, Nmt, Lowercase, Strip, StripAccents,
// Replace, Prepend, BertNormalizer and Precompiled (Precompiled.cpp), with the
// Rust tokenizers' semantics: Lowercase maps each code point on its own (no
// final-sigma rule), StripAccents removes all marks, Strip and
// BertNormalizer's clean-up use Unicode's White_Space.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "runtime/Unicode.h"
#include "runtime/hf/Pattern.h"

#include <algorithm>
#include <functional>

namespace tfm::rt::hf {

namespace {

using unicode::GeneralCategory;

class SequenceNormalizer : public Normalizer {
public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
      : steps_(std::move(steps)) {}
  bool normalize(std::u32string &text, std::string &error) const override {
    for (const auto &step : steps_)
      if (!step->normalize(text, error))
        return false;
    return true;
  }

private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

/// A normalizer that cannot fail: a function of the text.
class FunctionNormalizer : public Normalizer {
public:
  explicit FunctionNormalizer(std::function<void(std::u32string &)> apply)
      : apply_(std::move(apply)) {}
  bool normalize(std::u32string &text, std::string &) const override {
    apply_(text);
    return true;
  }

private:
  std::function<void(std::u32string &)> apply_;
};

class ReplaceNormalizer : public Normalizer {
public:
  ReplaceNormalizer(std::unique_ptr<Pattern> pattern, std::u32string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  bool normalize(std::u32string &text, std::string &error) const override {
    return pattern_->replaceAll(text, content_, error);
  }

private:
  std::unique_ptr<Pattern> pattern_;
  std::u32string content_;
};

/// SentencePiece's NMT normalization as the Rust tokenizers' `Nmt`: ASCII
/// and C1 control characters removed, other whitespace-like code points
/// (tab, line breaks, Ogham space, zero-width and directional marks, line
/// and paragraph separators, U+2581, BOM, U+FFFD) to a space.
void nmt(std::u32string &text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t cp : text) {
    bool control = (cp >= 0x01 && cp <= 0x08) || cp == 0x0B ||
                   (cp >= 0x0E && cp <= 0x1F) || cp == 0x7F || cp == 0x8F ||
                   cp == 0x9F;
    if (control)
      continue;
    bool space = cp == 0x09 || cp == 0x0A || cp == 0x0C || cp == 0x0D ||
                 cp == 0x1680 || (cp >= 0x200B && cp <= 0x200F) ||
                 cp == 0x2028 || cp == 0x2029 || cp == 0x2581 || cp == 0xFEFF ||
                 cp == 0xFFFD;
    out.push_back(space ? U' ' : cp);
  }
  text = std::move(out);
}

void lowercase(std::u32string &text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t cp : text)
    unicode::appendLowercase(cp, out);
  text = std::move(out);
}

/// Removes the code points of categories [lo, hi].
void removeCategories(std::u32string &text, GeneralCategory lo,
                      GeneralCategory hi) {
  text.erase(std::remove_if(text.begin(), text.end(),
                            [&](char32_t cp) {
                              GeneralCategory c = unicode::category(cp);
                              return c >= lo && c <= hi;
                            }),
             text.end());
}

void strip(std::u32string &text, bool left, bool right) {
  size_t begin = 0, end = text.size();
  while (left && begin < end && unicode::isWhiteSpace(text[begin]))
    ++begin;
  while (right && end > begin && unicode::isWhiteSpace(text[end - 1]))
    --end;
  text = text.substr(begin, end - begin);
}

/// BERT's "Chinese character" blocks (CJK ideographs, not kana or hangul).
bool isChineseChar(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

struct BertOptions {
  bool cleanText = true;
  bool handleChineseChars = true;
  bool lowercase = true;
  bool stripAccents = true;
};

void bertNormalize(const BertOptions &options, std::u32string &text) {
  if (options.cleanText) {
    std::u32string out;
    for (char32_t cp : text) {
      GeneralCategory c = unicode::category(cp);
      bool control = cp != '\t' && cp != '\n' && cp != '\r' &&
                     (c == GeneralCategory::Cc || c == GeneralCategory::Cf ||
                      c == GeneralCategory::Co || c == GeneralCategory::Cs);
      if (cp == 0 || cp == unicode::kReplacement || control)
        continue;
      out += unicode::isWhiteSpace(cp) ? U' ' : cp;
    }
    text = std::move(out);
  }
  if (options.handleChineseChars) {
    std::u32string out;
    for (char32_t cp : text) {
      if (isChineseChar(cp)) {
        out += U' ';
        out += cp;
        out += U' ';
      } else {
        out += cp;
      }
    }
    text = std::move(out);
  }
  if (options.stripAccents) {
    text = unicode::normalize(text, unicode::NormalForm::NFD);
    removeCategories(text, GeneralCategory::Mn, GeneralCategory::Mn);
  }
  if (options.lowercase)
    lowercase(text);
}

std::unique_ptr<Normalizer>
function(std::function<void(std::u32string &)> apply) {
  return std::make_unique<FunctionNormalizer>(std::move(apply));
}

std::unique_ptr<Normalizer> unicodeForm(unicode::NormalForm form) {
  return function(
      [form](std::u32string &text) { text = unicode::normalize(text, form); });
}

std::unique_ptr<Normalizer> createSequence(const JsonReader &reader,
                                           std::string &error) {
  std::vector<std::unique_ptr<Normalizer>> steps;
  if (!createSteps(reader, "normalizers", createNormalizer, steps, error))
    return nullptr;
  return std::make_unique<SequenceNormalizer>(std::move(steps));
}

std::unique_ptr<Normalizer> createBert(const JsonReader &reader,
                                       std::string &error) {
  BertOptions options;
  if (!reader.readBool("clean_text", options.cleanText, error) ||
      !reader.readBool("handle_chinese_chars", options.handleChineseChars,
                       error) ||
      !reader.readBool("lowercase", options.lowercase, error))
    return nullptr;
  // strip_accents null follows lowercase, as in BERT's original code.
  options.stripAccents = options.lowercase;
  if (!reader.readBool("strip_accents", options.stripAccents, error))
    return nullptr;
  return function(
      [options](std::u32string &text) { bertNormalize(options, text); });
}

std::unique_ptr<Normalizer> createReplace(const JsonReader &reader,
                                          std::string &error) {
  const JsonValue *pattern = reader.get("pattern");
  if (!pattern) {
    error = reader.typeError("pattern", "an object");
    return nullptr;
  }
  std::string content;
  if (!reader.readString("content", content, error, /*required=*/true))
    return nullptr;
  auto compiled = Pattern::fromJson(*pattern, reader.pathOf("pattern"), error);
  if (!compiled)
    return nullptr;
  return std::make_unique<ReplaceNormalizer>(std::move(compiled),
                                             unicode::toCodePoints(content));
}

} // namespace

std::unique_ptr<Normalizer> createNormalizer(const JsonValue &config,
                                             const std::string &path,
                                             std::string &error) {
  JsonReader reader(config, path);
  std::string type;
  if (!readType(reader, type, error))
    return nullptr;
  using unicode::NormalForm;
  if (type == "Sequence")
    return createSequence(reader, error);
  if (type == "NFC")
    return unicodeForm(NormalForm::NFC);
  if (type == "NFD")
    return unicodeForm(NormalForm::NFD);
  if (type == "NFKC")
    return unicodeForm(NormalForm::NFKC);
  if (type == "NFKD")
    return unicodeForm(NormalForm::NFKD);
  if (type == "Lowercase")
    return function(lowercase);
  if (type == "Nmt")
    return function(nmt);
  if (type == "StripAccents")
    return function([](std::u32string &text) {
      removeCategories(text, GeneralCategory::Mn, GeneralCategory::Me);
    });
  if (type == "Strip") {
    bool left = false, right = false;
    if (!reader.readBool("strip_left", left, error) ||
        !reader.readBool("strip_right", right, error))
      return nullptr;
    return function(
        [left, right](std::u32string &text) { strip(text, left, right); });
  }
  if (type == "Prepend") {
    std::string prepend;
    if (!reader.readString("prepend", prepend, error, /*required=*/true))
      return nullptr;
    std::u32string prefix = unicode::toCodePoints(prepend);
    return function([prefix](std::u32string &text) {
      if (!text.empty())
        text.insert(0, prefix);
    });
  }
  if (type == "Replace")
    return createReplace(reader, error);
  if (type == "BertNormalizer")
    return createBert(reader, error);
  if (type == "Precompiled") {
    std::string charsmap;
    if (!reader.readString("precompiled_charsmap", charsmap, error,
                           /*required=*/true))
      return nullptr;
    return createPrecompiled(charsmap, reader.pathOf("precompiled_charsmap"),
                             error);
  }
  error = unsupportedType("normalizer", type, path);
  return nullptr;
}

} // namespace tfm::rt::hf
