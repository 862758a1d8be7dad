//===- BpeModel.cpp - tokenizer.json "BPE" model --------------------------===//
//
// Byte-pair encoding as the Rust tokenizers do it: each character of a
// pre-token becomes a symbol (with continuing_subword_prefix on all but the
// first, end_of_word_suffix on the last; unknown characters become
// <0xXX> byte pieces under byte_fallback, else unk_token, fused when
// fuse_unk), then the adjacent pair with the lowest merge rank, leftmost
// among equals, merges until none applies. A priority queue of candidate
// pairs makes a word of n characters cost O(n log n), so a 131,000-character
// prompt without spaces (SentencePiece-style models see one "word") encodes
// at once.
//
//===----------------------------------------------------------------------===//
#include "runtime/hf/Components.h"

#include "runtime/ByteLevel.h"
#include "runtime/Unicode.h"
#include "runtime/hf/ModelSupport.h"

#include <cstdio>
#include <queue>
#include <unordered_map>

namespace tfm::rt::hf {

namespace {

uint64_t pairKey(int left, int right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
         static_cast<uint32_t>(right);
}

struct MergeRule {
  int rank;
  int merged;
};

/// A queued merge of the symbol at `left` with its right neighbour; the
/// ids it had when queued tell stale entries apart.
struct Candidate {
  int rank;
  int left;
  int leftId, rightId, merged;
};
struct CandidateOrder {
  bool operator()(const Candidate &a, const Candidate &b) const {
    if (a.rank != b.rank)
      return a.rank > b.rank;
    return a.left > b.left;
  }
};

struct Symbol {
  int id;
  int prev, next;
};

class BpeModel : public Model {
public:
  bool load(const JsonReader &reader, std::string &error);

  const Vocabulary &vocabulary() const override { return vocab_; }

  bool checkByteLevelAlphabet(std::string &error) const override {
    if (unkId_ >= 0)
      return true;
    for (int byte = 0; byte < 256; ++byte) {
      std::string symbol = unicode::toUtf8(
          std::u32string(1, byteLevelChar(static_cast<unsigned char>(byte))));
      if (vocab_.find(symbol) < 0) {
        char hex[8];
        std::snprintf(hex, sizeof(hex), "0x%02X", byte);
        error = "the byte-level BPE vocabulary has no symbol for byte " +
                std::string(hex) + " ('" + symbol +
                "') and no unk_token, so text containing that byte could not "
                "be encoded";
        return false;
      }
    }
    return true;
  }

  void encode(const std::u32string &piece,
              std::vector<int> &ids) const override {
    if (piece.empty())
      return;
    std::string utf8;
    if (ignoreMerges_) {
      int whole = vocab_.find(unicode::toUtf8(piece));
      if (whole >= 0) {
        ids.push_back(whole);
        return;
      }
    }
    std::vector<Symbol> symbols;
    symbols.reserve(piece.size());
    bool pendingUnk = false;
    auto add = [&](int id) {
      int index = static_cast<int>(symbols.size());
      symbols.push_back({id, index - 1, -1});
      if (index > 0)
        symbols[index - 1].next = index;
    };
    for (size_t i = 0; i < piece.size(); ++i) {
      utf8.clear();
      if (i > 0)
        utf8 += prefix_;
      unicode::appendUtf8(piece[i], utf8);
      if (i + 1 == piece.size())
        utf8 += suffix_;
      int id = vocab_.find(utf8);
      if (id >= 0) {
        pendingUnk = false;
        add(id);
        continue;
      }
      if (byteFallback_ && allBytesKnown(utf8)) {
        pendingUnk = false;
        for (unsigned char byte : utf8)
          add(byteIds_[byte]);
        continue;
      }
      if (unkId_ < 0)
        continue; // as in Rust, a character nothing covers is dropped
      if (!(pendingUnk && fuseUnk_))
        add(unkId_);
      pendingUnk = true;
    }
    mergeAll(symbols);
    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next)
      ids.push_back(symbols[i].id);
  }

private:
  bool allBytesKnown(const std::string &utf8) const {
    for (unsigned char byte : utf8)
      if (byteIds_[byte] < 0)
        return false;
    return true;
  }

  const MergeRule *rule(int left, int right) const {
    auto it = merges_.find(pairKey(left, right));
    return it == merges_.end() ? nullptr : &it->second;
  }

  void mergeAll(std::vector<Symbol> &symbols) const {
    std::priority_queue<Candidate, std::vector<Candidate>, CandidateOrder>
        queue;
    auto consider = [&](int left) {
      if (left < 0 || symbols[left].next < 0)
        return;
      int leftId = symbols[left].id;
      int rightId = symbols[symbols[left].next].id;
      if (const MergeRule *r = rule(leftId, rightId))
        queue.push({r->rank, left, leftId, rightId, r->merged});
    };
    for (size_t i = 0; i + 1 < symbols.size(); ++i)
      consider(static_cast<int>(i));
    std::vector<bool> dead(symbols.size(), false);
    while (!queue.empty()) {
      Candidate top = queue.top();
      queue.pop();
      Symbol &left = symbols[top.left];
      if (dead[top.left] || left.id != top.leftId || left.next < 0 ||
          symbols[left.next].id != top.rightId)
        continue;
      int right = left.next;
      left.id = top.merged;
      dead[right] = true;
      left.next = symbols[right].next;
      if (left.next >= 0)
        symbols[left.next].prev = top.left;
      consider(left.prev);
      consider(top.left);
    }
  }

  bool loadMerges(const JsonReader &reader, std::string &error);

  Vocabulary vocab_;
  std::unordered_map<uint64_t, MergeRule> merges_;
  std::string prefix_, suffix_;
  int unkId_ = -1;
  bool fuseUnk_ = false, byteFallback_ = false, ignoreMerges_ = false;
  int byteIds_[256];
};

bool BpeModel::loadMerges(const JsonReader &reader, std::string &error) {
  const JsonValue *merges;
  if (!reader.readArray("merges", merges, error, /*required=*/true))
    return false;
  merges_.reserve(merges->array.size());
  for (size_t rank = 0; rank < merges->array.size(); ++rank) {
    const JsonValue &merge = merges->array[rank];
    std::string where =
        reader.pathOf("merges") + "[" + std::to_string(rank) + "]";
    std::string left, right;
    if (merge.kind == JsonValue::Kind::String) {
      // "a b": Rust splits at spaces and wants exactly two parts.
      size_t space = merge.string.find(' ');
      if (space == std::string::npos ||
          merge.string.find(' ', space + 1) != std::string::npos) {
        error = "'" + where +
                "' must be two tokens separated by one space, "
                "not '" +
                merge.string + "'";
        return false;
      }
      left = merge.string.substr(0, space);
      right = merge.string.substr(space + 1);
    } else if (merge.kind == JsonValue::Kind::Array &&
               merge.array.size() == 2 &&
               merge.array[0].kind == JsonValue::Kind::String &&
               merge.array[1].kind == JsonValue::Kind::String) {
      left = merge.array[0].string;
      right = merge.array[1].string;
    } else {
      error = "'" + where + "' must be \"a b\" or [\"a\", \"b\"]";
      return false;
    }
    // The right part's continuing-subword prefix is not repeated.
    if (right.compare(0, prefix_.size(), prefix_) != 0) {
      error =
          "'" + where + "': '" + right + "' lacks the prefix '" + prefix_ + "'";
      return false;
    }
    std::string merged = left + right.substr(prefix_.size());
    int leftId = vocab_.find(left), rightId = vocab_.find(right),
        mergedId = vocab_.find(merged);
    for (const auto &[token, id] :
         {std::pair<const std::string &, int>{left, leftId},
          {right, rightId},
          {merged, mergedId}})
      if (id < 0) {
        error = "'" + where + "': '" + token + "' is not in the vocabulary";
        return false;
      }
    merges_[pairKey(leftId, rightId)] = {static_cast<int>(rank), mergedId};
  }
  return true;
}

bool BpeModel::load(const JsonReader &reader, std::string &error) {
  double dropout = 0;
  if (!readVocabObject(reader, vocab_, error) ||
      !readUnkToken(reader, vocab_, unkId_, error) ||
      !reader.readBool("fuse_unk", fuseUnk_, error) ||
      !reader.readBool("byte_fallback", byteFallback_, error) ||
      !reader.readBool("ignore_merges", ignoreMerges_, error) ||
      !reader.readString("continuing_subword_prefix", prefix_, error) ||
      !reader.readString("end_of_word_suffix", suffix_, error) ||
      !reader.readNumber("dropout", dropout, error))
    return false;
  if (dropout != 0) {
    error = "'" + reader.pathOf("dropout") +
            "': BPE dropout (random merges) is not supported; it must be "
            "null or 0";
    return false;
  }
  for (int byte = 0; byte < 256; ++byte) {
    byteIds_[byte] =
        vocab_.find(byteFallbackToken(static_cast<unsigned char>(byte)));
    if (byteFallback_ && byteIds_[byte] < 0 && unkId_ < 0) {
      error = "'" + reader.path() + "' has byte_fallback but no token '" +
              byteFallbackToken(static_cast<unsigned char>(byte)) +
              "' and no unk_token, so text containing that byte could not "
              "be encoded";
      return false;
    }
  }
  return loadMerges(reader, error);
}

} // namespace

std::unique_ptr<Model> createBpeModel(const JsonReader &reader,
                                      std::string &error) {
  auto model = std::make_unique<BpeModel>();
  if (!model->load(reader, error))
    return nullptr;
  return model;
}

} // namespace tfm::rt::hf
