//===- Pattern.h - tokenizer.json patterns and split behaviours -*- C++ -*-===//
//
// A pattern is {"String": "..."} (a literal) or {"Regex": "..."} (an
// Oniguruma regex). Splitting a text by its matches follows the Rust
// tokenizers' NormalizedString::split: the text is cut into matched and
// unmatched spans, the behaviour decides what becomes of the matches
// (removed, isolated, merged into a neighbour, runs joined), and empty
// pieces are dropped.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_PATTERN_H
#define TFMC_RUNTIME_HF_PATTERN_H

#include "runtime/hf/Json.h"
#include "runtime/hf/Regex.h"

#include <memory>
#include <string>
#include <vector>

namespace tfm::rt::hf {

class Pattern {
public:
  /// Reads {"String": ...} or {"Regex": ...} at `path`.
  static std::unique_ptr<Pattern>
  fromJson(const JsonValue &value, const std::string &path, std::string &error);
  static std::unique_ptr<Pattern> literal(std::u32string text);

  /// Non-overlapping matches of `text`, left to right.
  bool findAll(std::u32string_view text, std::vector<Span> &matches,
               std::string &error) const;
  /// How much longer than its input a replacement may make a text: at
  /// most kMaxGrowth times, or kMinReplaceLimit characters. Beyond, an
  /// error (a hostile tokenizer.json, not a tokenizer anyone trained).
  static constexpr size_t kMaxGrowth = 64;
  static constexpr size_t kMinReplaceLimit = 1 << 16;

  /// Replaces every match with `content`; false and `error` when that
  /// would grow the text past the limit above.
  bool replaceAll(std::u32string &text, std::u32string_view content,
                  std::string &error) const;

private:
  std::u32string literal_;
  std::unique_ptr<Regex> regex_;
};

enum class SplitBehavior {
  Removed,
  Isolated,
  MergedWithPrevious,
  MergedWithNext,
  Contiguous
};

/// Reads a "behavior" member ("Isolated", ...) at `path`.
bool parseSplitBehavior(const std::string &name, const std::string &path,
                        SplitBehavior &behavior, std::string &error);

/// The pieces of a text of `length` code points that `matches` (sorted,
/// non-overlapping) split it into under `behavior`; with `invert` the
/// unmatched spans play the matches' part. Empty pieces are left out.
std::vector<Span> splitPieces(size_t length, const std::vector<Span> &matches,
                              SplitBehavior behavior, bool invert = false);

/// Every code point satisfying `predicate` as its own match.
template <typename Predicate>
std::vector<Span> charMatches(std::u32string_view text, Predicate predicate) {
  std::vector<Span> matches;
  for (size_t i = 0; i < text.size(); ++i)
    if (predicate(text[i]))
      matches.push_back({i, i + 1});
  return matches;
}

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_PATTERN_H
