//===- Vocabulary.cpp - Token strings <-> ids, validated ------------------===//
#include "runtime/hf/Vocabulary.h"

namespace tfm::rt::hf {

namespace {

/// The exclusive bound on ids for a vocabulary of `tokens` tokens.
int64_t idBound(size_t tokens) {
  return Vocabulary::kHoleFactor * static_cast<int64_t>(tokens) +
         Vocabulary::kIdSlack;
}

std::string quoted(const std::string &token) { return "'" + token + "'"; }

} // namespace

bool Vocabulary::assign(std::vector<std::pair<std::string, int64_t>> entries,
                        const std::string &what, std::string &error) {
  int64_t bound = idBound(entries.size());
  int64_t maxId = -1;
  for (const auto &[token, id] : entries) {
    if (id < 0 || id >= bound) {
      error = "'" + what + "': token " + quoted(token) + " has id " +
              std::to_string(id) + ", outside [0, " + std::to_string(bound) +
              ") for a vocabulary of " + std::to_string(entries.size()) +
              " tokens";
      return false;
    }
    maxId = std::max(maxId, id);
  }
  tokens_.assign(static_cast<size_t>(maxId + 1), std::string());
  present_.assign(tokens_.size(), false);
  ids_.clear();
  ids_.reserve(entries.size());
  for (auto &[token, id] : entries) {
    if (present_[id]) {
      error = "'" + what + "': id " + std::to_string(id) +
              " is given to both " + quoted(tokens_[id]) + " and " +
              quoted(token);
      return false;
    }
    if (!ids_.emplace(token, static_cast<int>(id)).second) {
      error = "'" + what + "': token " + quoted(token) + " appears twice";
      return false;
    }
    present_[id] = true;
    tokens_[id] = std::move(token);
  }
  return true;
}

bool Vocabulary::addOrCheck(const std::string &token, int64_t id,
                            size_t extraTokens, const std::string &what,
                            std::string &error) {
  int64_t bound = idBound(count() + extraTokens);
  if (id < 0 || id >= bound) {
    error = "'" + what + "': token " + quoted(token) + " has id " +
            std::to_string(id) + ", outside [0, " + std::to_string(bound) +
            ") for a vocabulary of " + std::to_string(count()) +
            " tokens and " + std::to_string(extraTokens) + " added tokens";
    return false;
  }
  auto it = ids_.find(token);
  if (it != ids_.end()) {
    if (it->second == id)
      return true;
    error = "'" + what + "': token " + quoted(token) + " has id " +
            std::to_string(id) + " but the vocabulary gives it id " +
            std::to_string(it->second);
    return false;
  }
  if (id < size() && present_[id]) {
    error = "'" + what + "': id " + std::to_string(id) + " is given to both " +
            quoted(tokens_[id]) + " and " + quoted(token);
    return false;
  }
  if (id >= size()) {
    tokens_.resize(static_cast<size_t>(id + 1));
    present_.resize(tokens_.size(), false);
  }
  tokens_[id] = token;
  present_[id] = true;
  ids_.emplace(token, static_cast<int>(id));
  return true;
}

int Vocabulary::find(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

const std::string *Vocabulary::token(int id) const {
  if (id < 0 || id >= size() || !present_[id])
    return nullptr;
  return &tokens_[id];
}

} // namespace tfm::rt::hf
