//===- WordModels.cpp - tokenizer.json "WordPiece" and "WordLevel" models -===//
//
// WordPiece (BERT): greedy longest-match-first over each pre-token, later
// pieces spelled with continuing_subword_prefix ("##"); a word longer than
// max_input_chars_per_word, or one with a part no token covers, becomes the
// unk token. Candidates never exceed the longest token, so a long word costs
// O(n * longest) lookups. WordLevel: each pre-token is a token or unk.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "runtime/Unicode.h"
#include "runtime/hf/ModelSupport.h"

#include <algorithm>

namespace tfm::rt::hf {

namespace {

class WordPieceModel : public Model {
public:
  bool load(const JsonReader &reader, std::string &error) {
    int64_t maxChars = 100;
    if (!readVocabObject(reader, vocab_, error) ||
        !readUnkToken(reader, vocab_, unkId_, error) ||
        !reader.readString("continuing_subword_prefix", prefix_, error) ||
        !reader.readInteger("max_input_chars_per_word", maxChars, error))
      return false;
    if (unkId_ < 0) {
      error = "'" + reader.pathOf("unk_token") +
              "' is required: WordPiece encodes unknown words as it";
      return false;
    }
    maxChars_ = static_cast<size_t>(std::max<int64_t>(maxChars, 0));
    for (int id = 0; id < vocab_.size(); ++id)
      if (const std::string *token = vocab_.token(id))
        longest_ = std::max(longest_, token->size());
    return true;
  }

  const Vocabulary &vocabulary() const override { return vocab_; }

  void encode(const std::u32string &piece,
              std::vector<int> &ids) const override {
    if (piece.size() > maxChars_) {
      ids.push_back(unkId_);
      return;
    }
    // Byte offsets of the code points of the word.
    std::string word;
    std::vector<size_t> offsets;
    for (char32_t cp : piece) {
      offsets.push_back(word.size());
      unicode::appendUtf8(cp, word);
    }
    offsets.push_back(word.size());
    std::vector<int> pieces;
    std::string candidate;
    for (size_t start = 0; start + 1 < offsets.size();) {
      size_t spelled = start > 0 ? prefix_.size() : 0;
      size_t end = offsets.size() - 1;
      while (end > start && offsets[end] - offsets[start] + spelled > longest_)
        --end;
      int found = -1;
      for (; end > start; --end) {
        candidate.assign(start > 0 ? prefix_ : std::string());
        candidate.append(word, offsets[start], offsets[end] - offsets[start]);
        found = vocab_.find(candidate);
        if (found >= 0)
          break;
      }
      if (found < 0) {
        ids.push_back(unkId_);
        return;
      }
      pieces.push_back(found);
      start = end;
    }
    ids.insert(ids.end(), pieces.begin(), pieces.end());
  }

private:
  Vocabulary vocab_;
  std::string prefix_ = "##";
  size_t maxChars_ = 100;
  size_t longest_ = 0;
  int unkId_ = -1;
};

class WordLevelModel : public Model {
public:
  bool load(const JsonReader &reader, std::string &error) {
    if (!readVocabObject(reader, vocab_, error) ||
        !readUnkToken(reader, vocab_, unkId_, error))
      return false;
    if (unkId_ < 0) {
      error = "'" + reader.pathOf("unk_token") +
              "' is required: WordLevel encodes unknown words as it";
      return false;
    }
    return true;
  }

  const Vocabulary &vocabulary() const override { return vocab_; }

  void encode(const std::u32string &piece,
              std::vector<int> &ids) const override {
    int id = vocab_.find(unicode::toUtf8(piece));
    ids.push_back(id >= 0 ? id : unkId_);
  }

private:
  Vocabulary vocab_;
  int unkId_ = -1;
};

} // namespace

std::unique_ptr<Model> createWordPieceModel(const JsonReader &reader,
                                            std::string &error) {
  auto model = std::make_unique<WordPieceModel>();
  if (!model->load(reader, error))
    return nullptr;
  return model;
}

std::unique_ptr<Model> createWordLevelModel(const JsonReader &reader,
                                            std::string &error) {
  auto model = std::make_unique<WordLevelModel>();
  if (!model->load(reader, error))
    return nullptr;
  return model;
}

} // namespace tfm::rt::hf
