//===- AddedTokens.cpp - Splitting added tokens out of the text -----------===//
#include "runtime/hf/AddedTokens.h"

#include "runtime/Unicode.h"

#include <algorithm>
#include <cstdint>

namespace tfm::rt::hf {

namespace {

uint64_t edgeKey(int node, char32_t cp) {
  return (static_cast<uint64_t>(node) << 21) | cp;
}

/// Rust's word characters for single_word: alphanumeric or '_'.
bool isWordLike(char32_t cp) {
  return cp == '_' || unicode::isLetter(cp) || unicode::isNumber(cp);
}

} // namespace

bool readAddedTokens(const JsonValue *list, const std::string &path,
                     std::vector<AddedToken> &tokens, std::string &error) {
  tokens.clear();
  if (!list)
    return true;
  if (list->kind != JsonValue::Kind::Array) {
    error = "'" + path + "' must be an array, not " + list->kindName();
    return false;
  }
  for (size_t i = 0; i < list->array.size(); ++i) {
    JsonReader reader(list->array[i], path + "[" + std::to_string(i) + "]");
    AddedToken token;
    int64_t id = -1;
    if (!reader.expectObject(error) ||
        !reader.readString("content", token.content, error,
                           /*required=*/true) ||
        !reader.readInteger("id", id, error, /*required=*/true) ||
        !reader.readBool("single_word", token.singleWord, error) ||
        !reader.readBool("lstrip", token.lstrip, error) ||
        !reader.readBool("rstrip", token.rstrip, error) ||
        !reader.readBool("special", token.special, error))
      return false;
    // Without "normalized", special tokens match the raw text.
    token.normalized = !token.special;
    if (!reader.readBool("normalized", token.normalized, error))
      return false;
    if (token.content.empty()) {
      error = "'" + reader.pathOf("content") + "' must not be empty";
      return false;
    }
    if (id < 0 || id > INT32_MAX) {
      error = "'" + reader.pathOf("id") + "' (" + std::to_string(id) +
              ") is not a token id";
      return false;
    }
    token.id = static_cast<int>(id);
    tokens.push_back(std::move(token));
  }
  return true;
}

void AddedTokenMatcher::add(const std::u32string &content, int index) {
  if (content.empty())
    return;
  int node = 0;
  for (char32_t cp : content) {
    auto [edge, inserted] =
        edges_.emplace(edgeKey(node, cp), static_cast<int>(terminal_.size()));
    if (inserted)
      terminal_.push_back(-1);
    node = edge->second;
  }
  // The first token with a spelling keeps it, as a map built in order
  // would not; two added tokens rarely share one.
  if (terminal_[node] < 0)
    terminal_[node] = index;
}

std::vector<Section>
AddedTokenMatcher::split(const std::u32string &text,
                         const std::vector<AddedToken> &tokens) const {
  std::vector<Section> sections;
  size_t sectionStart = 0; // where the pending plain text begins
  size_t n = text.size();
  for (size_t i = 0; i < n && !empty();) {
    // The longest token starting at i.
    int node = 0, found = -1;
    size_t foundEnd = i;
    for (size_t j = i; j < n; ++j) {
      auto edge = edges_.find(edgeKey(node, text[j]));
      if (edge == edges_.end())
        break;
      node = edge->second;
      if (terminal_[node] >= 0) {
        found = terminal_[node];
        foundEnd = j + 1;
      }
    }
    if (found < 0) {
      ++i;
      continue;
    }
    const AddedToken &token = tokens[found];
    size_t start = i, stop = foundEnd;
    i = foundEnd;
    if (token.singleWord && ((start > 0 && isWordLike(text[start - 1])) ||
                             (stop < n && isWordLike(text[stop]))))
      continue;
    if (token.lstrip)
      while (start > sectionStart && unicode::isWhiteSpace(text[start - 1]))
        --start;
    if (token.rstrip)
      while (stop < n && unicode::isWhiteSpace(text[stop]))
        ++stop;
    if (sectionStart < start)
      sections.push_back({sectionStart, start, -1});
    sections.push_back({start, stop, found});
    sectionStart = stop;
    i = stop;
  }
  if (sectionStart < n)
    sections.push_back({sectionStart, n, -1});
  return sections;
}

} // namespace tfm::rt::hf
