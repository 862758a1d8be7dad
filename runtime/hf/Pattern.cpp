//===- Pattern.cpp - tokenizer.json patterns and split behaviours ---------===//
#include "runtime/hf/Pattern.h"

#include "runtime/Unicode.h"

#include <algorithm>

namespace tfm::rt::hf {

std::unique_ptr<Pattern> Pattern::fromJson(const JsonValue &value,
                                           const std::string &path,
                                           std::string &error) {
  JsonReader reader(value, path);
  if (!reader.expectObject(error))
    return nullptr;
  std::unique_ptr<Pattern> pattern(new Pattern());
  std::string text;
  if (reader.get("String")) {
    if (!reader.readString("String", text, error))
      return nullptr;
    pattern->literal_ = unicode::toCodePoints(text);
    return pattern;
  }
  if (!reader.readString("Regex", text, error))
    return nullptr;
  if (!reader.get("Regex")) {
    error = "'" + path + "' must hold \"String\" or \"Regex\"";
    return nullptr;
  }
  pattern->regex_ = Regex::compile(text, error);
  if (!pattern->regex_) {
    error = "'" + reader.pathOf("Regex") + "': " + error;
    return nullptr;
  }
  return pattern;
}

std::unique_ptr<Pattern> Pattern::literal(std::u32string text) {
  std::unique_ptr<Pattern> pattern(new Pattern());
  pattern->literal_ = std::move(text);
  return pattern;
}

bool Pattern::findAll(std::u32string_view text, std::vector<Span> &matches,
                      std::string &error) const {
  if (regex_)
    return regex_->findAll(text, matches, error);
  matches.clear();
  if (literal_.empty())
    return true;
  for (size_t at = text.find(literal_); at != std::u32string_view::npos;
       at = text.find(literal_, at + literal_.size()))
    matches.push_back({at, at + literal_.size()});
  return true;
}

bool Pattern::replaceAll(std::u32string &text, std::u32string_view content,
                         std::string &error) const {
  std::vector<Span> matches;
  if (!findAll(text, matches, error))
    return false;
  if (matches.empty())
    return true;
  // A replacement may lengthen the text, but not without bound: a
  // tokenizer.json whose Replace maps one character to 10,000 would make a
  // long prompt gigabytes before anything could say it is too long.
  size_t matched = 0;
  for (const Span &m : matches)
    matched += m.end - m.begin;
  size_t size = text.size() - matched + matches.size() * content.size();
  size_t limit = std::max<size_t>(kMinReplaceLimit, text.size() * kMaxGrowth);
  if (content.size() > 0 && size > limit) {
    error = "a Replace grows the text from " + std::to_string(text.size()) +
            " to " + std::to_string(size) + " characters, more than " +
            std::to_string(kMaxGrowth) + " times";
    return false;
  }
  std::u32string out;
  out.reserve(size);
  size_t last = 0;
  for (const Span &m : matches) {
    out.append(text, last, m.begin - last);
    out.append(content);
    last = m.end;
  }
  out.append(text, last, std::u32string::npos);
  text = std::move(out);
  return true;
}

bool parseSplitBehavior(const std::string &name, const std::string &path,
                        SplitBehavior &behavior, std::string &error) {
  static const std::pair<const char *, SplitBehavior> kNames[] = {
      {"Removed", SplitBehavior::Removed},
      {"Isolated", SplitBehavior::Isolated},
      {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
      {"MergedWithNext", SplitBehavior::MergedWithNext},
      {"Contiguous", SplitBehavior::Contiguous}};
  for (const auto &[spelling, value] : kNames)
    if (name == spelling) {
      behavior = value;
      return true;
    }
  error = "unsupported split behavior '" + name + "' at '" + path +
          "' (expected Removed, Isolated, MergedWithPrevious, "
          "MergedWithNext or Contiguous)";
  return false;
}

std::vector<Span> splitPieces(size_t length, const std::vector<Span> &matches,
                              SplitBehavior behavior, bool invert) {
  // The text as matched/unmatched spans, as Rust's Pattern::find_matches.
  struct Event {
    Span span;
    bool match;
  };
  std::vector<Event> events;
  size_t prev = 0;
  for (const Span &m : matches) {
    if (prev != m.begin)
      events.push_back({{prev, m.begin}, invert});
    events.push_back({m, !invert});
    prev = m.end;
  }
  if (prev != length || events.empty())
    events.push_back({{prev, length}, invert});

  // Each piece with whether it is removed.
  std::vector<Event> pieces;
  bool previousMatch = false;
  switch (behavior) {
  case SplitBehavior::Removed:
    pieces = events;
    break;
  case SplitBehavior::Isolated:
    for (const Event &e : events)
      pieces.push_back({e.span, false});
    break;
  case SplitBehavior::Contiguous:
    for (const Event &e : events) {
      if (e.match == previousMatch && !pieces.empty())
        pieces.back().span.end = e.span.end;
      else
        pieces.push_back({e.span, false});
      previousMatch = e.match;
    }
    break;
  case SplitBehavior::MergedWithPrevious:
    for (const Event &e : events) {
      if (e.match && !previousMatch && !pieces.empty())
        pieces.back().span.end = e.span.end;
      else
        pieces.push_back({e.span, false});
      previousMatch = e.match;
    }
    break;
  case SplitBehavior::MergedWithNext:
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if (it->match && !previousMatch && !pieces.empty())
        pieces.back().span.begin = it->span.begin;
      else
        pieces.push_back({it->span, false});
      previousMatch = it->match;
    }
    std::reverse(pieces.begin(), pieces.end());
    break;
  }
  std::vector<Span> out;
  for (const Event &p : pieces)
    if (!p.match && p.span.end > p.span.begin)
      out.push_back(p.span);
  return out;
}

} // namespace tfm::rt::hf
