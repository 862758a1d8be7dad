//===- UnigramModel.cpp - tokenizer.json "Unigram" model (T5) -------------===//
//
// The most probable segmentation of each pre-token under the pieces'
// log-probabilities (Viterbi over the lattice of vocabulary pieces). A
// position no piece starts with a single character gets the unk piece, at
// the lowest score minus 10 (the unk piece's own score is replaced by it,
// as in @huggingface/tokenizers). Among equally good paths the one whose
// last piece starts first wins, as the lattice implementations of the
// reference and of the Rust tokenizers pick it. Consecutive unknown pieces
// fuse into one; with byte_fallback they become <0xXX> pieces instead.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "runtime/Unicode.h"
#include "runtime/hf/ModelSupport.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace tfm::rt::hf {

namespace {

/// Penalty of an unknown character below the lowest piece score.
constexpr double kUnkPenalty = 10.0;

class UnigramModel : public Model {
public:
  bool load(const JsonReader &reader, std::string &error);

  const Vocabulary &vocabulary() const override { return vocab_; }

  void encode(const std::u32string &piece,
              std::vector<int> &ids) const override {
    if (piece.empty())
      return;
    std::string text;
    std::vector<size_t> charAt; // byte offset -> char index + 1 (0: inside)
    std::vector<size_t> offsets;
    for (char32_t cp : piece) {
      offsets.push_back(text.size());
      unicode::appendUtf8(cp, text);
    }
    offsets.push_back(text.size());
    charAt.assign(text.size() + 1, 0);
    for (size_t i = 0; i < offsets.size(); ++i)
      charAt[offsets[i]] = i + 1;

    size_t n = piece.size();
    std::vector<double> best(n + 1, 0);
    std::vector<bool> reached(n + 1, false);
    std::vector<int> bestId(n + 1, -1);
    std::vector<size_t> bestBegin(n + 1, 0);
    reached[0] = true;
    auto offer = [&](size_t begin, size_t end, int id, double score) {
      double total = best[begin] + score;
      if (!reached[end] || total > best[end]) {
        reached[end] = true;
        best[end] = total;
        bestId[end] = id;
        bestBegin[end] = begin;
      }
    };
    for (size_t begin = 0; begin < n; ++begin) {
      bool singleChar = false;
      // Pieces that start here, shortest first (a walk down the trie).
      int node = 0;
      for (size_t b = offsets[begin]; b < text.size(); ++b) {
        auto edge = edges_.find(edgeKey(node, text[b]));
        if (edge == edges_.end())
          break;
        node = edge->second;
        int id = nodeToken_[node];
        size_t endChar = charAt[b + 1];
        if (id < 0 || endChar == 0)
          continue;
        offer(begin, endChar - 1, id, scores_[id]);
        singleChar |= endChar - 1 == begin + 1;
      }
      if (!singleChar)
        offer(begin, begin + 1, unkId_, unkScore_);
    }

    // Back from the end, then forwards with unknown runs fused.
    struct Step {
      int id;
      size_t begin, end;
    };
    std::vector<Step> path;
    for (size_t end = n; end > 0; end = bestBegin[end])
      path.push_back({bestId[end], bestBegin[end], end});
    std::reverse(path.begin(), path.end());
    for (size_t i = 0; i < path.size();) {
      if (path[i].id != unkId_) {
        ids.push_back(path[i].id);
        ++i;
        continue;
      }
      size_t j = i;
      while (j < path.size() && path[j].id == unkId_)
        ++j;
      size_t from = offsets[path[i].begin];
      appendUnknown(text.substr(from, offsets[path[j - 1].end] - from), ids);
      i = j;
    }
  }

private:
  static uint64_t edgeKey(int node, char byte) {
    return (static_cast<uint64_t>(node) << 8) |
           static_cast<unsigned char>(byte);
  }

  void appendUnknown(const std::string &bytes, std::vector<int> &ids) const {
    if (byteFallback_) {
      std::vector<int> pieces;
      for (unsigned char byte : bytes) {
        int id = vocab_.find(byteFallbackToken(byte));
        if (id < 0)
          break;
        pieces.push_back(id);
      }
      if (pieces.size() == bytes.size()) {
        ids.insert(ids.end(), pieces.begin(), pieces.end());
        return;
      }
    }
    ids.push_back(unkId_);
  }

  Vocabulary vocab_;
  std::vector<double> scores_;
  /// Trie over the pieces' bytes: (node, byte) -> child; node 0 is the root.
  std::unordered_map<uint64_t, int> edges_;
  /// The piece that ends at each node, or -1.
  std::vector<int> nodeToken_{-1};
  int unkId_ = -1;
  double unkScore_ = 0;
  bool byteFallback_ = false;
};

bool UnigramModel::load(const JsonReader &reader, std::string &error) {
  const JsonValue *vocab;
  int64_t unkId = -1;
  if (!reader.readArray("vocab", vocab, error, /*required=*/true) ||
      !reader.readInteger("unk_id", unkId, error) ||
      !reader.readBool("byte_fallback", byteFallback_, error))
    return false;
  std::vector<std::pair<std::string, int64_t>> entries;
  for (size_t id = 0; id < vocab->array.size(); ++id) {
    const JsonValue &entry = vocab->array[id];
    if (entry.kind != JsonValue::Kind::Array || entry.array.size() != 2 ||
        entry.array[0].kind != JsonValue::Kind::String ||
        entry.array[1].kind != JsonValue::Kind::Number) {
      error = "'" + reader.pathOf("vocab") + "[" + std::to_string(id) +
              "]' must be [piece, score]";
      return false;
    }
    entries.emplace_back(entry.array[0].string, static_cast<int64_t>(id));
    scores_.push_back(entry.array[1].number);
  }
  if (entries.empty()) {
    error = "'" + reader.pathOf("vocab") + "' holds no pieces";
    return false;
  }
  if (!reader.get("unk_id") || unkId < 0 ||
      unkId >= static_cast<int64_t>(entries.size())) {
    error = "'" + reader.pathOf("unk_id") +
            "' must be the id of a piece (Unigram encodes unknown "
            "characters as it)";
    return false;
  }
  unkId_ = static_cast<int>(unkId);
  for (const auto &[piece, id] : entries) {
    int node = 0;
    for (char byte : piece) {
      auto [edge, inserted] = edges_.emplace(
          edgeKey(node, byte), static_cast<int>(nodeToken_.size()));
      if (inserted)
        nodeToken_.push_back(-1);
      node = edge->second;
    }
    if (node != 0)
      nodeToken_[node] = static_cast<int>(id);
  }
  if (!vocab_.assign(std::move(entries), reader.pathOf("vocab"), error))
    return false;
  unkScore_ = *std::min_element(scores_.begin(), scores_.end()) - kUnkPenalty;
  scores_[unkId_] = unkScore_;
  return true;
}

} // namespace

std::unique_ptr<Model> createUnigramModel(const JsonReader &reader,
                                          std::string &error) {
  auto model = std::make_unique<UnigramModel>();
  if (!model->load(reader, error))
    return nullptr;
  return model;
}

} // namespace tfm::rt::hf
