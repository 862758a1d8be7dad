//===- Vocabulary.h - Token strings <-> ids, validated ----------*- C++ -*-===//
//
// tokenizer.json gives ids explicitly (a vocab object, added tokens) or by
// position (Unigram's list). Ids are checked before anything is sized by
// them: an id may not exceed kHoleFactor times the number of tokens (plus a
// small slack), so a file claiming id 2^24 for a 1000-token vocabulary is
// rejected instead of allocating 16M slots; two strings may not share an id.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_VOCABULARY_H
#define TFMC_RUNTIME_HF_VOCABULARY_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tfm::rt::hf {

class Vocabulary {
public:
  /// Ids must stay below kHoleFactor * tokens + kIdSlack.
  static constexpr int64_t kHoleFactor = 2;
  static constexpr int64_t kIdSlack = 256;

  /// Builds from (token, id) entries; `what` names them in errors
  /// ("model.vocab"). Tokens are unique (the JSON parser rejects repeated
  /// keys; callers of lists check them here).
  bool assign(std::vector<std::pair<std::string, int64_t>> entries,
              const std::string &what, std::string &error);
  /// Adds `token` as `id`, or checks that it is already there with that id;
  /// `extraTokens` is how many tokens are being added in all, which bounds
  /// the ids. False and `error` on a clash or an id out of bounds.
  bool addOrCheck(const std::string &token, int64_t id, size_t extraTokens,
                  const std::string &what, std::string &error);

  /// The id of `token`, or -1.
  int find(std::string_view token) const;
  /// The string of `id`, or null when `id` names no token.
  const std::string *token(int id) const;
  /// The largest id + 1.
  int size() const { return static_cast<int>(tokens_.size()); }
  /// How many tokens (size() minus holes).
  size_t count() const { return ids_.size(); }

private:
  std::vector<std::string> tokens_;
  std::vector<bool> present_;
  std::unordered_map<std::string, int> ids_;
};

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_VOCABULARY_H
