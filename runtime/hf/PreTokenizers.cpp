//===- PreTokenizers.cpp - tokenizer.json "pre_tokenizer" components ------===//
//
// ByteLevel, Metaspace, Split, Whitespace, WhitespaceSplit,
// BertPreTokenizer, Punctuation, Digits, CharDelimiterSplit and Sequence,
// with the Rust tokenizers' splitting semantics (pattern splits honour every
// behaviour and `invert`; Metaspace splits before each replacement
// character when `split` is set). ByteLevel's built-in GPT-2 regex treats
// white space as JavaScript's \s does (U+FEFF is space, U+0085 is not), as
// @huggingface/tokenizers, the project's reference, does.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "runtime/ByteLevel.h"
#include "runtime/Gpt2Tokenizer.h"
#include "runtime/Unicode.h"
#include "runtime/hf/Pattern.h"

#include <algorithm>

namespace tfm::rt::hf {

namespace {

/// Replaces every piece by the pieces `split` cuts it into (spans of its
/// text); a sub-piece starts the input when its piece did and it begins at
/// the piece's start.
template <typename SplitFn>
bool splitEach(std::vector<PreToken> &pieces, std::string &error,
               SplitFn split) {
  std::vector<PreToken> out;
  std::vector<Span> spans;
  for (PreToken &piece : pieces) {
    spans.clear();
    if (!split(piece.text, spans, error))
      return false;
    for (const Span &s : spans)
      out.push_back({piece.text.substr(s.begin, s.end - s.begin),
                     piece.atStart && s.begin == 0});
  }
  pieces = std::move(out);
  return true;
}

class ByteLevelPreTokenizer : public PreTokenizer {
public:
  ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex)
      : addPrefixSpace_(addPrefixSpace), useRegex_(useRegex) {}
  bool isByteLevel() const override { return true; }
  bool preTokenize(std::vector<PreToken> &pieces,
                   std::string &) const override {
    std::vector<PreToken> out;
    for (PreToken &piece : pieces) {
      if (addPrefixSpace_ && (piece.text.empty() || piece.text[0] != ' '))
        piece.text.insert(0, 1, U' ');
      std::string utf8 = unicode::toUtf8(piece.text);
      if (!useRegex_) {
        out.push_back({toByteLevel(utf8), piece.atStart});
        continue;
      }
      bool first = true;
      for (std::string_view word : Gpt2Tokenizer::pretokenize(utf8)) {
        out.push_back({toByteLevel(word), piece.atStart && first});
        first = false;
      }
    }
    pieces = std::move(out);
    pieces.erase(
        std::remove_if(pieces.begin(), pieces.end(),
                       [](const PreToken &p) { return p.text.empty(); }),
        pieces.end());
    return true;
  }

private:
  bool addPrefixSpace_, useRegex_;
};

class MetaspacePreTokenizer : public PreTokenizer {
public:
  enum class Prepend { Always, First, Never };
  MetaspacePreTokenizer(char32_t replacement, Prepend prepend, bool split)
      : replacement_(replacement), prepend_(prepend), split_(split) {}
  bool preTokenize(std::vector<PreToken> &pieces,
                   std::string &error) const override {
    for (PreToken &piece : pieces) {
      std::replace(piece.text.begin(), piece.text.end(), U' ', replacement_);
      bool prepend = prepend_ == Prepend::Always ||
                     (prepend_ == Prepend::First && piece.atStart);
      if (prepend && (piece.text.empty() || piece.text[0] != replacement_))
        piece.text.insert(0, 1, replacement_);
    }
    if (!split_)
      return true;
    return splitEach(
        pieces, error,
        [&](const std::u32string &text, std::vector<Span> &spans,
            std::string &) {
          spans = splitPieces(
              text.size(),
              charMatches(text, [&](char32_t c) { return c == replacement_; }),
              SplitBehavior::MergedWithNext);
          return true;
        });
  }

private:
  char32_t replacement_;
  Prepend prepend_;
  bool split_;
};

class SplitPreTokenizer : public PreTokenizer {
public:
  SplitPreTokenizer(std::unique_ptr<Pattern> pattern, SplitBehavior behavior,
                    bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  bool preTokenize(std::vector<PreToken> &pieces,
                   std::string &error) const override {
    std::vector<Span> matches;
    return splitEach(pieces, error,
                     [&](const std::u32string &text, std::vector<Span> &spans,
                         std::string &err) {
                       if (!pattern_->findAll(text, matches, err))
                         return false;
                       spans = splitPieces(text.size(), matches, behavior_,
                                           invert_);
                       return true;
                     });
  }

private:
  std::unique_ptr<Pattern> pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

/// Splits by a per-code-point predicate with a fixed behaviour.
template <typename Predicate>
class PredicatePreTokenizer : public PreTokenizer {
public:
  PredicatePreTokenizer(Predicate predicate, SplitBehavior behavior)
      : predicate_(predicate), behavior_(behavior) {}
  bool preTokenize(std::vector<PreToken> &pieces,
                   std::string &error) const override {
    return splitEach(pieces, error,
                     [&](const std::u32string &text, std::vector<Span> &spans,
                         std::string &) {
                       spans = splitPieces(text.size(),
                                           charMatches(text, predicate_),
                                           behavior_);
                       return true;
                     });
  }

private:
  Predicate predicate_;
  SplitBehavior behavior_;
};

template <typename Predicate>
std::unique_ptr<PreTokenizer> byPredicate(Predicate predicate,
                                          SplitBehavior behavior) {
  return std::make_unique<PredicatePreTokenizer<Predicate>>(predicate,
                                                            behavior);
}

/// `\w+|[^\w\s]+` with Unicode classes: word runs and runs of other
/// non-space characters; spaces are dropped.
class WhitespacePreTokenizer : public PreTokenizer {
public:
  bool preTokenize(std::vector<PreToken> &pieces,
                   std::string &error) const override {
    return splitEach(pieces, error,
                     [](const std::u32string &text, std::vector<Span> &spans,
                        std::string &) {
                       auto kind = [](char32_t c) {
                         return unicode::isWordChar(c)     ? 1
                                : unicode::isWhiteSpace(c) ? 0
                                                           : 2;
                       };
                       for (size_t i = 0; i < text.size();) {
                         int k = kind(text[i]);
                         size_t j = i + 1;
                         while (j < text.size() && kind(text[j]) == k)
                           ++j;
                         if (k != 0)
                           spans.push_back({i, j});
                         i = j;
                       }
                       return true;
                     });
  }
};

/// BERT's punctuation: ASCII punctuation and symbols, and Unicode P*.
bool isBertPunctuation(char32_t c) {
  if (c < 0x80)
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
           (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
  return unicode::isPunctuation(c);
}

class SequencePreTokenizer : public PreTokenizer {
public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> s)
      : steps_(std::move(s)) {}
  bool isByteLevel() const override {
    for (const auto &step : steps_)
      if (step->isByteLevel())
        return true;
    return false;
  }
  bool preTokenize(std::vector<PreToken> &pieces,
                   std::string &error) const override {
    for (const auto &step : steps_)
      if (!step->preTokenize(pieces, error))
        return false;
    return true;
  }

private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

/// Reads a one-code-point string member (Metaspace's replacement).
bool readChar(const JsonReader &reader, std::string_view key, char32_t &out,
              std::string &error) {
  std::string text;
  if (!reader.readString(key, text, error))
    return false;
  if (!reader.get(key))
    return true;
  std::u32string cps = unicode::toCodePoints(text);
  if (cps.size() != 1) {
    error = "'" + reader.pathOf(key) + "' must be one character, not '" + text +
            "'";
    return false;
  }
  out = cps[0];
  return true;
}

std::unique_ptr<PreTokenizer> createMetaspace(const JsonReader &reader,
                                              std::string &error) {
  char32_t replacement = 0x2581;
  bool split = true, addPrefixSpace = true;
  std::string scheme;
  if (!readChar(reader, "replacement", replacement, error) ||
      !reader.readBool("split", split, error) ||
      !reader.readBool("add_prefix_space", addPrefixSpace, error) ||
      !reader.readString("prepend_scheme", scheme, error))
    return nullptr;
  using Prepend = MetaspacePreTokenizer::Prepend;
  // Files older than prepend_scheme say add_prefix_space.
  Prepend prepend = addPrefixSpace ? Prepend::Always : Prepend::Never;
  if (scheme == "first")
    prepend = Prepend::First;
  else if (scheme == "never")
    prepend = Prepend::Never;
  else if (scheme == "always")
    prepend = Prepend::Always;
  else if (!scheme.empty()) {
    error = "unsupported prepend_scheme '" + scheme + "' at '" +
            reader.pathOf("prepend_scheme") +
            "' (expected first, always or never)";
    return nullptr;
  }
  return std::make_unique<MetaspacePreTokenizer>(replacement, prepend, split);
}

std::unique_ptr<PreTokenizer> createSplit(const JsonReader &reader,
                                          std::string &error) {
  const JsonValue *patternJson = reader.get("pattern");
  if (!patternJson) {
    error = reader.typeError("pattern", "an object");
    return nullptr;
  }
  std::string behaviorName;
  bool invert = false;
  SplitBehavior behavior;
  if (!reader.readString("behavior", behaviorName, error, /*required=*/true) ||
      !parseSplitBehavior(behaviorName, reader.pathOf("behavior"), behavior,
                          error) ||
      !reader.readBool("invert", invert, error))
    return nullptr;
  auto pattern =
      Pattern::fromJson(*patternJson, reader.pathOf("pattern"), error);
  if (!pattern)
    return nullptr;
  return std::make_unique<SplitPreTokenizer>(std::move(pattern), behavior,
                                             invert);
}

std::unique_ptr<PreTokenizer> createSequence(const JsonReader &reader,
                                             std::string &error) {
  std::vector<std::unique_ptr<PreTokenizer>> steps;
  if (!createSteps(reader, "pretokenizers", createPreTokenizer, steps, error))
    return nullptr;
  return std::make_unique<SequencePreTokenizer>(std::move(steps));
}

} // namespace

std::unique_ptr<PreTokenizer> createPreTokenizer(const JsonValue &config,
                                                 const std::string &path,
                                                 std::string &error) {
  JsonReader reader(config, path);
  std::string type;
  if (!readType(reader, type, error))
    return nullptr;
  if (type == "ByteLevel") {
    bool addPrefixSpace = true, useRegex = true;
    if (!reader.readBool("add_prefix_space", addPrefixSpace, error) ||
        !reader.readBool("use_regex", useRegex, error))
      return nullptr;
    return std::make_unique<ByteLevelPreTokenizer>(addPrefixSpace, useRegex);
  }
  if (type == "Metaspace")
    return createMetaspace(reader, error);
  if (type == "Split")
    return createSplit(reader, error);
  if (type == "Sequence")
    return createSequence(reader, error);
  if (type == "Whitespace")
    return std::make_unique<WhitespacePreTokenizer>();
  if (type == "WhitespaceSplit")
    return byPredicate(unicode::isWhiteSpace, SplitBehavior::Removed);
  if (type == "BertPreTokenizer") {
    // Spaces removed, then each punctuation character on its own.
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    steps.push_back(byPredicate(unicode::isWhiteSpace, SplitBehavior::Removed));
    steps.push_back(byPredicate(isBertPunctuation, SplitBehavior::Isolated));
    return std::make_unique<SequencePreTokenizer>(std::move(steps));
  }
  if (type == "Punctuation") {
    std::string name = "Isolated";
    SplitBehavior behavior;
    if (!reader.readString("behavior", name, error) ||
        !parseSplitBehavior(name, reader.pathOf("behavior"), behavior, error))
      return nullptr;
    return byPredicate(isBertPunctuation, behavior);
  }
  if (type == "Digits") {
    bool individual = false;
    if (!reader.readBool("individual_digits", individual, error))
      return nullptr;
    return byPredicate(unicode::isNumber, individual
                                              ? SplitBehavior::Isolated
                                              : SplitBehavior::Contiguous);
  }
  if (type == "CharDelimiterSplit") {
    char32_t delimiter = 0;
    if (!readChar(reader, "delimiter", delimiter, error))
      return nullptr;
    if (!reader.get("delimiter")) {
      error = reader.typeError("delimiter", "a string");
      return nullptr;
    }
    return byPredicate([delimiter](char32_t c) { return c == delimiter; },
                       SplitBehavior::Removed);
  }
  error = unsupportedType("pre_tokenizer", type, path);
  return nullptr;
}

} // namespace tfm::rt::hf
