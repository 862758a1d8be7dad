//===- SpmTokenizer.cpp - llama2.c-style SentencePiece BPE tokenizer ------===//
//
// Reproduces llama2.c run.c's tokenizer: the blob is tokenizer.bin verbatim
// (int32 max_token_length, then per piece: float score, int32 length, bytes).
// Encoding merges by score with a priority queue instead of run.c's quadratic
// rescans; the queue orders by (score, position) so it picks exactly the pair
// run.c picks on every step.
//
//===----------------------------------------------------------------------===//
#include "runtime/SpmTokenizer.h"

#include "runtime/ReadFile.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <queue>

namespace tfm::rt {

namespace {

/// run.c seeds its best-score search with -1e10 and compares with `>`, so
/// pairs scoring at or below it (and NaN scores) never merge.
constexpr float kNoScore = -1e10f;
/// Byte-fallback pieces <0x00>..<0xFF> follow <unk>, <s>, </s>.
constexpr int kByteFallbackOffset = 3;

/// Bounds-checked reader over the blob. Fields are in host byte order, as
/// run.c reads tokenizer.bin with fread.
class BlobReader {
public:
  explicit BlobReader(std::string_view data) : data_(data) {}
  bool atEnd() const { return pos_ == data_.size(); }
  size_t offset() const { return pos_; }
  template <typename T> bool read(T &value) {
    if (data_.size() - pos_ < sizeof(T))
      return false;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool readBytes(size_t n, std::string &out) {
    if (data_.size() - pos_ < n)
      return false;
    out.assign(data_.data() + pos_, n);
    pos_ += n;
    return true;
  }

private:
  std::string_view data_;
  size_t pos_ = 0;
};

/// The raw byte a piece spelled exactly "<0xXX>" stands for, or -1.
int byteOfPiece(const std::string &piece) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>')
    return -1;
  int value = 0;
  for (int i = 3; i < 5; ++i) {
    char c = piece[i];
    int digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else
      return -1;
    value = value * 16 + digit;
  }
  return value;
}

bool isContinuationByte(unsigned char c) { return (c & 0xC0) == 0x80; }

/// One candidate merge of the symbol at `left` with its right neighbour.
struct MergeCandidate {
  float score;
  int left;
  int leftId;
  int rightId;
  int mergedId;
};

/// Highest score first; on equal scores the leftmost pair, as run.c's scan
/// keeps the first maximum. Symbols keep their original index when merged,
/// so index order is position order.
struct CandidateOrder {
  bool operator()(const MergeCandidate &a, const MergeCandidate &b) const {
    if (a.score != b.score)
      return a.score < b.score;
    return a.left > b.left;
  }
};

/// A token in the doubly linked list the merge pass edits.
struct Symbol {
  int id;
  int prev;
  int next;
  bool alive;
};

} // namespace

bool parseSpmBlob(std::string_view blob, std::vector<std::string> &pieces,
                  std::vector<float> &scores, std::string &error) {
  BlobReader reader(blob);
  int32_t maxTokenLength = 0;
  if (!reader.read(maxTokenLength)) {
    error = "spm tokenizer blob is truncated: missing the max_token_length "
            "header (" +
            std::to_string(blob.size()) + " bytes)";
    return false;
  }
  if (maxTokenLength < 0) {
    error = "spm tokenizer blob has a negative max_token_length (" +
            std::to_string(maxTokenLength) + ")";
    return false;
  }
  pieces.clear();
  scores.clear();
  while (!reader.atEnd()) {
    size_t index = pieces.size();
    size_t entryOffset = reader.offset();
    float score = 0;
    int32_t length = 0;
    std::string bytes;
    if (!reader.read(score) || !reader.read(length)) {
      error = "spm tokenizer blob is truncated in the header of piece " +
              std::to_string(index) + " (offset " +
              std::to_string(entryOffset) + ")";
      return false;
    }
    if (length < 0 || length > maxTokenLength) {
      error = "spm tokenizer piece " + std::to_string(index) + " has length " +
              std::to_string(length) + ", outside [0, max_token_length=" +
              std::to_string(maxTokenLength) + "]";
      return false;
    }
    if (!reader.readBytes(static_cast<size_t>(length), bytes)) {
      error = "spm tokenizer blob is truncated in the bytes of piece " +
              std::to_string(index) + " (needs " + std::to_string(length) +
              " bytes at offset " + std::to_string(reader.offset()) + ")";
      return false;
    }
    pieces.push_back(std::move(bytes));
    scores.push_back(score);
  }
  if (pieces.empty()) {
    error = "spm tokenizer blob has no pieces";
    return false;
  }
  return true;
}

std::unique_ptr<SpmTokenizer>
SpmTokenizer::create(std::string_view blob, int bos, std::string &error) {
  std::unique_ptr<SpmTokenizer> tok(new SpmTokenizer(bos));
  if (!parseSpmBlob(blob, tok->pieces_, tok->scores_, error))
    return nullptr;
  if (bos >= static_cast<int>(tok->pieces_.size())) {
    error = "spm tokenizer: BOS id " + std::to_string(bos) +
            " is outside the vocabulary of " +
            std::to_string(tok->pieces_.size()) + " pieces";
    return nullptr;
  }
  // Keys view into pieces_, which is never resized after this point. The
  // first id wins for duplicate pieces so lookups are deterministic.
  tok->ids_.reserve(tok->pieces_.size());
  tok->decoded_.reserve(tok->pieces_.size());
  for (size_t id = 0; id < tok->pieces_.size(); ++id) {
    const std::string &piece = tok->pieces_[id];
    tok->ids_.emplace(std::string_view(piece), static_cast<int>(id));
    int byte = byteOfPiece(piece);
    tok->decoded_.push_back(byte >= 0 ? std::string(1, static_cast<char>(byte))
                                      : piece);
  }
  return tok;
}

int SpmTokenizer::lookup(std::string_view piece) const {
  auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

void SpmTokenizer::appendChunk(std::string_view chunk,
                               std::vector<int> &ids) const {
  int id = lookup(chunk);
  if (id >= 0) {
    ids.push_back(id);
    return;
  }
  // Byte fallback. A vocabulary too small to hold the 256 byte pieces maps
  // the missing ones to <unk> (id 0) rather than to out-of-range ids.
  for (unsigned char byte : chunk) {
    int fallback = byte + kByteFallbackOffset;
    ids.push_back(fallback < vocabSize() ? fallback : 0);
  }
}

bool SpmTokenizer::encode(std::string_view text, bool addBos,
                          std::vector<int> &ids, std::string &) const {
  ids = encodeIds(text, addBos);
  return true;
}

std::string SpmTokenizer::tokenString(int id) const {
  return id >= 0 && id < vocabSize() ? pieces_[id] : std::string();
}

std::vector<int> SpmTokenizer::encodeIds(std::string_view text,
                                         bool addBos) const {
  std::vector<int> ids;
  ids.reserve(text.size() + 2);
  if (addBos && bos_ >= 0)
    ids.push_back(bos_);
  // SentencePiece's add_dummy_prefix, as run.c does it: a separate " " token
  // that the merges then fuse with the first word.
  if (!text.empty())
    appendChunk(" ", ids);
  // Chunks are whole UTF-8 code points (at most 4 bytes); stray continuation
  // bytes are grouped the way run.c groups them.
  size_t start = 0;
  while (start < text.size()) {
    size_t end = start + 1;
    while (end < text.size() && end - start < 4 &&
           isContinuationByte(static_cast<unsigned char>(text[end])))
      ++end;
    appendChunk(text.substr(start, end - start), ids);
    start = end;
  }
  mergePairs(ids);
  return ids;
}

void SpmTokenizer::mergePairs(std::vector<int> &ids) const {
  if (ids.size() < 2)
    return;
  std::vector<Symbol> symbols(ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    symbols[i] = {ids[i], static_cast<int>(i) - 1,
                  i + 1 < ids.size() ? static_cast<int>(i) + 1 : -1, true};

  std::priority_queue<MergeCandidate, std::vector<MergeCandidate>,
                      CandidateOrder>
      queue;
  std::string joined;
  auto consider = [&](int left) {
    if (left < 0 || symbols[left].next < 0)
      return;
    const Symbol &l = symbols[left];
    const Symbol &r = symbols[l.next];
    joined = pieces_[l.id];
    joined += pieces_[r.id];
    int merged = lookup(joined);
    if (merged < 0 || !(scores_[merged] > kNoScore))
      return;
    queue.push({scores_[merged], left, l.id, r.id, merged});
  };
  for (size_t i = 0; i + 1 < symbols.size(); ++i)
    consider(static_cast<int>(i));

  while (!queue.empty()) {
    MergeCandidate top = queue.top();
    queue.pop();
    Symbol &l = symbols[top.left];
    // Stale entries: either side has since merged into something else.
    if (!l.alive || l.id != top.leftId || l.next < 0)
      continue;
    Symbol &r = symbols[l.next];
    if (r.id != top.rightId)
      continue;
    l.id = top.mergedId;
    r.alive = false;
    l.next = r.next;
    if (r.next >= 0)
      symbols[r.next].prev = top.left;
    consider(l.prev);
    consider(top.left);
  }

  ids.clear();
  for (int i = 0; i >= 0; i = symbols[i].next)
    ids.push_back(symbols[i].id);
}

std::string SpmTokenizer::decode(int prev, int token) const {
  if (token < 0 || token >= vocabSize())
    return std::string();
  const std::string &text = decoded_[token];
  // SentencePiece's dummy prefix: the first piece after BOS carries a space
  // the user never typed.
  if (prev == bos_ && bos_ >= 0 && !text.empty() && text[0] == ' ' &&
      byteOfPiece(pieces_[token]) < 0)
    return text.substr(1);
  return text;
}

//===-- Blob builders -----------------------------------------------------===//

bool spmBlobFromLlama2cFile(const std::string &path, int expectedVocab,
                            std::string &blob, std::string &error) {
  std::string data;
  if (!readFile(path, data, error, "tokenizer"))
    return false;
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::string parseError;
  if (!parseSpmBlob(data, pieces, scores, parseError)) {
    error = "tokenizer '" + path + "': " + parseError;
    return false;
  }
  if (static_cast<int64_t>(pieces.size()) != expectedVocab) {
    error = "tokenizer '" + path + "' has " + std::to_string(pieces.size()) +
            " pieces but the model's vocabulary has " +
            std::to_string(expectedVocab);
    return false;
  }
  blob = std::move(data);
  return true;
}

std::string spmBlobFromPieces(const std::vector<std::string> &pieces,
                              const std::vector<float> &scores) {
  int32_t maxLength = 0;
  for (const std::string &piece : pieces)
    maxLength =
        std::max<int32_t>(maxLength, static_cast<int32_t>(piece.size()));
  std::string blob;
  auto append = [&blob](const void *data, size_t n) {
    blob.append(static_cast<const char *>(data), n);
  };
  append(&maxLength, sizeof(maxLength));
  for (size_t i = 0; i < pieces.size(); ++i) {
    float score = i < scores.size() ? scores[i] : 0.0f;
    int32_t length = static_cast<int32_t>(pieces[i].size());
    append(&score, sizeof(score));
    append(&length, sizeof(length));
    blob += pieces[i];
  }
  return blob;
}

} // namespace tfm::rt
