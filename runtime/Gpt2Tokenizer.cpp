//===- Gpt2Tokenizer.cpp - GPT-2 byte-level BPE tokenizer -----------------===//
//
// Matches npm gpt-3-encoder 1.1.4's Encoder.js exactly, including two of its
// quirks: merge ranks are looked up by the pair joined with ',' (so pairs
// that join to the same key share a rank), and among pairs of equal rank the
// rightmost one decides which symbols merge.
//
// Blob layout (little endian), private to this file:
//   "GPT2BPE1"  u32 tokenCount  u32 mergeCount
//   tokenCount x { u32 length, bytes }          vocab.json strings, id order
//   mergeCount x { u32 length, bytes, u32 length, bytes }   rank order
// Strings stay in GPT-2's byte-to-unicode spelling so the blob is lossless;
// loading converts them to raw bytes once.
//
//===----------------------------------------------------------------------===//
#include "runtime/Gpt2Tokenizer.h"

#include "runtime/ByteLevel.h"
#include "runtime/ReadFile.h"
#include "runtime/Unicode.h"
#include "runtime/hf/Json.h"

#include <algorithm>
#include <cstdint>
#include <queue>

namespace tfm::rt {

namespace {

constexpr std::string_view kBlobMagic = "GPT2BPE1";
/// Cached words; bounded so long-running generators cannot grow it forever.
constexpr size_t kMaxCachedWords = 1 << 16;

/// The regex's classes; kOther is [^\s\p{L}\p{N}].
enum class CharClass : uint8_t { kLetter, kNumber, kSpace, kOther };

CharClass classify(char32_t cp) {
  if (cp < 0x80) {
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'))
      return CharClass::kLetter;
    if (cp >= '0' && cp <= '9')
      return CharClass::kNumber;
    if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D))
      return CharClass::kSpace;
    return CharClass::kOther;
  }
  if (unicode::isLetter(cp))
    return CharClass::kLetter;
  if (unicode::isNumber(cp))
    return CharClass::kNumber;
  if (unicode::isJsWhiteSpace(cp))
    return CharClass::kSpace;
  return CharClass::kOther;
}

/// Length of the contraction ('s 't 're 've 'm 'll 'd, lowercase only) at
/// `i`, or 0.
size_t contractionLength(const std::vector<char32_t> &cps, size_t i) {
  if (cps[i] != '\'' || i + 1 >= cps.size())
    return 0;
  char32_t a = cps[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd')
    return 2;
  if (i + 2 >= cps.size())
    return 0;
  char32_t b = cps[i + 2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') ||
      (a == 'l' && b == 'l'))
    return 3;
  return 0;
}

/// Length in code points of the regex match starting at `i`.
size_t matchLength(const std::vector<char32_t> &cps,
                   const std::vector<CharClass> &classes, size_t i) {
  size_t n = cps.size();
  if (size_t length = contractionLength(cps, i))
    return length;
  // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: a run of one class, with
  // one optional leading U+0020. Only one alternative can start here.
  bool leadingSpace =
      cps[i] == ' ' && i + 1 < n && classes[i + 1] != CharClass::kSpace;
  if (leadingSpace || classes[i] != CharClass::kSpace) {
    size_t start = leadingSpace ? i + 1 : i;
    CharClass runClass = classes[start];
    size_t end = start + 1;
    while (end < n && classes[end] == runClass)
      ++end;
    return end - i;
  }
  // `\s+(?!\S)` leaves the last space of a run for the next word, unless the
  // run ends the text; a lone space before a non-space falls to `\s+`.
  size_t end = i + 1;
  while (end < n && classes[end] == CharClass::kSpace)
    ++end;
  if (end == n || end - i == 1)
    return end - i;
  return end - i - 1;
}

//===-- Blob serialisation ------------------------------------------------===//

void appendU32(std::string &out, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8)
    out += static_cast<char>((value >> shift) & 0xFF);
}

void appendString(std::string &out, std::string_view s) {
  appendU32(out, static_cast<uint32_t>(s.size()));
  out.append(s.data(), s.size());
}

class BlobReader {
public:
  explicit BlobReader(std::string_view data) : data_(data) {}
  bool atEnd() const { return pos_ == data_.size(); }
  bool readU32(uint32_t &value) {
    if (data_.size() - pos_ < 4)
      return false;
    value = 0;
    for (int i = 0; i < 4; ++i)
      value |=
          static_cast<uint32_t>(static_cast<unsigned char>(data_[pos_ + i]))
          << (8 * i);
    pos_ += 4;
    return true;
  }
  bool readString(std::string &out) {
    uint32_t length;
    if (!readU32(length) || data_.size() - pos_ < length)
      return false;
    out.assign(data_.data() + pos_, length);
    pos_ += length;
    return true;
  }
  bool readMagic(std::string_view magic) {
    if (data_.substr(pos_, magic.size()) != magic)
      return false;
    pos_ += magic.size();
    return true;
  }

private:
  std::string_view data_;
  size_t pos_ = 0;
};

/// A vocab.json / merges.txt string in raw bytes: each character of GPT-2's
/// byte spelling becomes its byte; characters outside that spelling (added
/// special tokens) keep their UTF-8 bytes.
std::string unmapToBytes(std::string_view spelled) {
  std::string raw;
  size_t pos = 0;
  while (pos < spelled.size()) {
    size_t start = pos;
    char32_t cp = unicode::decodeUtf8(spelled, pos);
    int byte = cp == unicode::kInvalid ? -1 : byteLevelByte(cp);
    if (byte >= 0)
      raw += static_cast<char>(byte);
    else
      raw.append(spelled.data() + start, pos - start);
  }
  return raw;
}

/// Splits a merges line at whitespace like the reference
/// (`x.split(/(\s+)/).filter(e => e.trim().length > 0)`); false unless it
/// has exactly two parts.
bool splitMergeLine(std::string_view line, std::string &first,
                    std::string &second) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  auto isSpace = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
           c == '\f';
  };
  while (pos < line.size()) {
    while (pos < line.size() && isSpace(line[pos]))
      ++pos;
    size_t start = pos;
    while (pos < line.size() && !isSpace(line[pos]))
      ++pos;
    if (pos > start)
      parts.push_back(line.substr(start, pos - start));
  }
  if (parts.size() != 2)
    return false;
  first = std::string(parts[0]);
  second = std::string(parts[1]);
  return true;
}

std::string
serialize(const std::vector<std::string> &tokensById,
          const std::vector<std::pair<std::string, std::string>> &merges) {
  std::string blob(kBlobMagic);
  appendU32(blob, static_cast<uint32_t>(tokensById.size()));
  appendU32(blob, static_cast<uint32_t>(merges.size()));
  for (const std::string &token : tokensById)
    appendString(blob, token);
  for (const auto &merge : merges) {
    appendString(blob, merge.first);
    appendString(blob, merge.second);
  }
  return blob;
}

//===-- vocab.json --------------------------------------------------------===//

/// vocab.json (one JSON object of token -> id, read by the strict parser
/// tokenizer.json uses) -> tokens in id order; ids must be 0..n-1 exactly.
/// JSON.parse would keep the last id of a repeated token; the parser
/// rejects repeated keys instead, as no vocabulary written by a tokenizer
/// has them.
bool tokensFromVocabJson(std::string_view json, const std::string &path,
                         std::vector<std::string> &tokensById,
                         std::string &error) {
  const std::string prefix =
      "'" + path + "' is not a flat JSON object of token ids: ";
  hf::JsonValue vocab;
  std::string parseError;
  if (!hf::parseJson(json, vocab, parseError)) {
    error = prefix + parseError;
    return false;
  }
  if (vocab.kind != hf::JsonValue::Kind::Object) {
    error = prefix + "it holds " + vocab.kindName() + ", not an object";
    return false;
  }
  std::vector<const std::string *> slots(vocab.object.size(), nullptr);
  for (const auto &[token, id] : vocab.object) {
    if (!id.isInteger) {
      error = prefix + "token \"" + token + "\" maps to " + id.kindName() +
              ", not an integer token id";
      return false;
    }
    if (id.integer < 0 || id.integer >= static_cast<int64_t>(slots.size())) {
      error = "'" + path + "': token id " + std::to_string(id.integer) +
              " is outside [0, " + std::to_string(slots.size()) + ")";
      return false;
    }
    if (slots[id.integer]) {
      error = "'" + path + "': token id " + std::to_string(id.integer) +
              " is used by more than one token";
      return false;
    }
    slots[id.integer] = &token;
  }
  if (slots.empty()) {
    error = "'" + path + "' holds no tokens";
    return false;
  }
  tokensById.clear();
  for (const std::string *token : slots)
    tokensById.push_back(*token);
  return true;
}

} // namespace

//===-- Pre-tokenisation --------------------------------------------------===//

std::vector<std::string_view>
Gpt2Tokenizer::pretokenize(std::string_view text) {
  std::vector<char32_t> cps;
  std::vector<size_t> offsets;
  cps.reserve(text.size());
  offsets.reserve(text.size() + 1);
  for (size_t pos = 0; pos < text.size();) {
    offsets.push_back(pos);
    cps.push_back(unicode::decodeUtf8(text, pos));
  }
  offsets.push_back(text.size());
  std::vector<CharClass> classes(cps.size());
  for (size_t i = 0; i < cps.size(); ++i)
    classes[i] = classify(cps[i]);

  std::vector<std::string_view> pieces;
  for (size_t i = 0; i < cps.size();) {
    size_t end = i + matchLength(cps, classes, i);
    pieces.push_back(text.substr(offsets[i], offsets[end] - offsets[i]));
    i = end;
  }
  return pieces;
}

//===-- Tokenizer ---------------------------------------------------------===//

std::unique_ptr<Gpt2Tokenizer> Gpt2Tokenizer::create(std::string_view blob,
                                                     int bos, int eos,
                                                     std::string &error) {
  BlobReader reader(blob);
  uint32_t tokenCount = 0, mergeCount = 0;
  if (!reader.readMagic(kBlobMagic)) {
    error = "gpt2-bpe tokenizer blob does not start with '" +
            std::string(kBlobMagic) + "'";
    return nullptr;
  }
  if (!reader.readU32(tokenCount) || !reader.readU32(mergeCount)) {
    error = "gpt2-bpe tokenizer blob is truncated in its header";
    return nullptr;
  }
  if (tokenCount == 0) {
    error = "gpt2-bpe tokenizer blob has no tokens";
    return nullptr;
  }
  std::unique_ptr<Gpt2Tokenizer> tok(new Gpt2Tokenizer(bos));
  std::string spelled;
  for (uint32_t id = 0; id < tokenCount; ++id) {
    if (!reader.readString(spelled)) {
      error = "gpt2-bpe tokenizer blob is truncated at token " +
              std::to_string(id) + " of " + std::to_string(tokenCount);
      return nullptr;
    }
    tok->bytes_.push_back(unmapToBytes(spelled));
    // The reference's vocabulary is a JSON object: the last id of a
    // repeated spelling wins.
    tok->ids_[tok->bytes_.back()] = static_cast<int>(id);
  }
  std::string first, second;
  for (uint32_t rank = 0; rank < mergeCount; ++rank) {
    if (!reader.readString(first) || !reader.readString(second)) {
      error = "gpt2-bpe tokenizer blob is truncated at merge " +
              std::to_string(rank) + " of " + std::to_string(mergeCount);
      return nullptr;
    }
    // Empty halves mark merges lines that did not split in two: they keep
    // their rank slot but never match.
    if (first.empty() || second.empty())
      continue;
    tok->ranks_[unmapToBytes(first) + "," + unmapToBytes(second)] =
        static_cast<int>(rank);
  }
  if (!reader.atEnd()) {
    error = "gpt2-bpe tokenizer blob has trailing bytes after its merges";
    return nullptr;
  }
  for (int special : {bos, eos}) {
    if (special >= static_cast<int>(tokenCount)) {
      error = "gpt2-bpe tokenizer: special token id " +
              std::to_string(special) + " is outside the vocabulary of " +
              std::to_string(tokenCount) + " tokens";
      return nullptr;
    }
  }
  return tok;
}

int Gpt2Tokenizer::rankOf(std::string_view first, std::string_view second,
                          std::string &scratch) const {
  scratch.assign(first.data(), first.size());
  scratch += ',';
  scratch.append(second.data(), second.size());
  auto it = ranks_.find(scratch);
  return it == ranks_.end() ? -1 : it->second;
}

namespace {

/// An adjacent pair that may merge: the symbols starting at byte `left` and
/// right after it, with the lengths they had when it was queued.
struct PairCandidate {
  int rank;
  uint32_t left;
  uint32_t leftLength;
  uint32_t rightLength;
};

/// Lowest rank first; among equal ranks the rightmost pair, which is the
/// one the reference's rank-keyed object ends up holding.
struct PairOrder {
  bool operator()(const PairCandidate &a, const PairCandidate &b) const {
    if (a.rank != b.rank)
      return a.rank > b.rank;
    return a.left < b.left;
  }
};

} // namespace

std::vector<int> Gpt2Tokenizer::bpe(std::string_view word) const {
  // Symbols are adjacent substrings of `word` in a linked list, each named
  // by the offset of its first byte. The reference repeatedly takes the
  // best pair and merges all its occurrences left to right; a queue of
  // candidate pairs finds them without rescanning the word, so a long word
  // costs O(n log n) instead of O(n^2).
  const uint32_t n = static_cast<uint32_t>(word.size());
  constexpr uint32_t kNone = ~0u;
  std::vector<uint32_t> length(n, 1), next(n), prev(n);
  for (uint32_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : kNone;
    prev[i] = i > 0 ? i - 1 : kNone;
  }
  auto symbol = [&](uint32_t at) { return word.substr(at, length[at]); };
  auto valid = [&](const PairCandidate &c) {
    return length[c.left] == c.leftLength && next[c.left] != kNone &&
           length[next[c.left]] == c.rightLength;
  };

  std::priority_queue<PairCandidate, std::vector<PairCandidate>, PairOrder>
      queue;
  std::string scratch;
  auto consider = [&](uint32_t left) {
    if (left == kNone || next[left] == kNone)
      return;
    int rank = rankOf(symbol(left), symbol(next[left]), scratch);
    if (rank >= 0)
      queue.push({rank, left, length[left], length[next[left]]});
  };
  for (uint32_t i = 0; i + 1 < n; ++i)
    consider(i);

  std::vector<PairCandidate> group, deferred;
  while (!queue.empty()) {
    PairCandidate best = queue.top();
    queue.pop();
    if (!valid(best))
      continue;
    std::string_view first = symbol(best.left);
    std::string_view second = symbol(next[best.left]);
    // Every occurrence of the pair is queued with the same rank; pairs that
    // merely share the rank (their comma-joined keys collide) wait.
    group.assign(1, best);
    deferred.clear();
    while (!queue.empty() && queue.top().rank == best.rank) {
      PairCandidate c = queue.top();
      queue.pop();
      if (!valid(c))
        continue;
      if (symbol(c.left) == first && symbol(next[c.left]) == second)
        group.push_back(c);
      else
        deferred.push_back(c);
    }
    std::sort(group.begin(), group.end(),
              [](const PairCandidate &a, const PairCandidate &b) {
                return a.left < b.left;
              });
    for (const PairCandidate &c : group) {
      // An earlier merge of this pass may have taken its left symbol.
      if (!valid(c))
        continue;
      uint32_t right = next[c.left];
      length[c.left] += length[right];
      length[right] = 0;
      next[c.left] = next[right];
      if (next[right] != kNone)
        prev[next[right]] = c.left;
      consider(prev[c.left]);
      consider(c.left);
    }
    for (const PairCandidate &c : deferred)
      queue.push(c);
  }

  std::vector<int> ids;
  for (uint32_t at = n ? 0 : kNone; at != kNone; at = next[at]) {
    auto it = ids_.find(std::string(symbol(at)));
    if (it != ids_.end()) {
      ids.push_back(it->second);
      continue;
    }
    // Only a vocabulary missing merge results or single bytes gets here
    // (the reference would emit `undefined`); fall back to byte tokens.
    for (char byte : symbol(at)) {
      auto byteIt = ids_.find(std::string(1, byte));
      if (byteIt != ids_.end())
        ids.push_back(byteIt->second);
    }
  }
  return ids;
}

void Gpt2Tokenizer::encodeWord(std::string_view word,
                               std::vector<int> &ids) const {
  std::string key(word);
  {
    std::lock_guard<std::mutex> lock(cacheMutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int> wordIds = bpe(word);
  ids.insert(ids.end(), wordIds.begin(), wordIds.end());
  std::lock_guard<std::mutex> lock(cacheMutex_);
  if (cache_.size() >= kMaxCachedWords)
    cache_.clear();
  cache_.emplace(std::move(key), std::move(wordIds));
}

bool Gpt2Tokenizer::encode(std::string_view text, bool /*addSpecialTokens*/,
                           std::vector<int> &ids, std::string &) const {
  ids = encodeIds(text);
  return true;
}

int Gpt2Tokenizer::tokenId(std::string_view token) const {
  auto it = ids_.find(unmapToBytes(token));
  return it == ids_.end() ? -1 : it->second;
}

std::string Gpt2Tokenizer::tokenString(int id) const {
  std::string spelled;
  if (id >= 0 && id < vocabSize())
    for (unsigned char byte : bytes_[id])
      unicode::appendUtf8(byteLevelChar(byte), spelled);
  return spelled;
}

std::vector<int> Gpt2Tokenizer::encodeIds(std::string_view text) const {
  std::vector<int> ids;
  for (std::string_view word : pretokenize(text))
    encodeWord(word, ids);
  return ids;
}

std::string Gpt2Tokenizer::decode(int /*prev*/, int token) const {
  if (token < 0 || token >= vocabSize())
    return std::string();
  return bytes_[token];
}

//===-- Blob builders -----------------------------------------------------===//

bool gpt2BlobFromFiles(const std::string &vocabJsonPath,
                       const std::string &mergesPath, std::string &blob,
                       std::string &error) {
  std::string json, mergesText;
  if (!readFile(vocabJsonPath, json, error) ||
      !readFile(mergesPath, mergesText, error))
    return false;

  std::vector<std::string> tokensById;
  if (!tokensFromVocabJson(json, vocabJsonPath, tokensById, error))
    return false;

  // The first line is a "#version: ..." comment; blank lines (the final
  // newline) carry no merge.
  std::vector<std::pair<std::string, std::string>> merges;
  size_t lineNumber = 0;
  for (size_t pos = 0; pos < mergesText.size();) {
    size_t eol = mergesText.find('\n', pos);
    if (eol == std::string::npos)
      eol = mergesText.size();
    std::string_view line(mergesText.data() + pos, eol - pos);
    pos = eol + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if ((lineNumber == 1 && line.substr(0, 1) == "#") || line.empty())
      continue;
    std::string first, second;
    if (!splitMergeLine(line, first, second)) {
      error = "'" + mergesPath + "' line " + std::to_string(lineNumber) +
              ": expected two space-separated symbols, got '" +
              std::string(line) + "'";
      return false;
    }
    merges.emplace_back(std::move(first), std::move(second));
  }
  blob = serialize(tokensById, merges);
  return true;
}

std::string gpt2BlobFromVocab(const std::vector<std::string> &tokensById,
                              const std::vector<std::string> &merges) {
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(merges.size());
  for (const std::string &line : merges) {
    std::string first, second;
    if (!splitMergeLine(line, first, second))
      first.clear(), second.clear();
    pairs.emplace_back(std::move(first), std::move(second));
  }
  return serialize(tokensById, pairs);
}

} // namespace tfm::rt
