//===- AddedTokens.h - Splitting added tokens out of the text ---*- C++ -*-===//
//
// tokenizer.json's "added_tokens" ([CLS], <|endoftext|>, <mask>, ...) are
// found before the model sees the text, as the Rust tokenizers'
// AddedVocabulary finds them: the tokens with "normalized": false in the raw
// text, the others in each normalized piece; at every position the longest
// token wins (leftmost-longest), "single_word" tokens only match between
// non-word characters, "lstrip"/"rstrip" swallow the white space before /
// after them.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_ADDEDTOKENS_H
#define TFMC_RUNTIME_HF_ADDEDTOKENS_H

#include "runtime/hf/Json.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace tfm::rt::hf {

struct AddedToken {
  std::string content;
  int id = -1;
  bool singleWord = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = true;
  bool special = false;
};

/// Reads "added_tokens" (absent or null: none); `path` names it.
bool readAddedTokens(const JsonValue *list, const std::string &path,
                     std::vector<AddedToken> &tokens, std::string &error);

/// A stretch of text: an added token (`token` >= 0, its index in the list
/// given to the matcher) or plain text (-1).
struct Section {
  size_t begin, end;
  int token;
};

/// Finds a set of added tokens in text (code points).
class AddedTokenMatcher {
public:
  /// Adds `tokens[index]` under the spelling `content` (the token's
  /// content, or its normalized form).
  void add(const std::u32string &content, int index);
  bool empty() const { return terminal_.size() <= 1; }

  /// Cuts `text` into sections; `tokens` are the tokens the indices name.
  std::vector<Section> split(const std::u32string &text,
                             const std::vector<AddedToken> &tokens) const;

private:
  /// Trie over code points: (node, code point) -> child; node 0 is the root.
  std::unordered_map<uint64_t, int> edges_;
  /// The token index ending at each node, or -1.
  std::vector<int> terminal_{-1};
};

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_ADDEDTOKENS_H
