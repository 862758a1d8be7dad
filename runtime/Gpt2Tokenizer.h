//===- Gpt2Tokenizer.h - GPT-2 byte-level BPE tokenizer ---------*- C++ -*-===//
//
// The "gpt2-bpe" tokenizer kind, matching the reference JavaScript encoder
// (npm gpt-3-encoder 1.1.4, Encoder.js) id for id: regex pre-tokenisation,
// the bytes_to_unicode map, and merges by rank.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_GPT2TOKENIZER_H
#define TFMC_RUNTIME_GPT2TOKENIZER_H

#include "runtime/Tokenizer.h"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tfm::rt {

class Gpt2Tokenizer : public Tokenizer {
public:
  /// Parses a blob made by gpt2BlobFromFiles / gpt2BlobFromVocab. `bos` and
  /// `eos` (-1 when absent) must lie inside the vocabulary.
  static std::unique_ptr<Gpt2Tokenizer> create(std::string_view blob, int bos,
                                               int eos, std::string &error);

  /// Pre-tokenises, then byte-level BPE per piece. Special-token text such
  /// as "<|endoftext|>" is encoded as ordinary text, as the reference does.
  std::vector<int> encodeIds(std::string_view text) const;
  using Tokenizer::encode;
  /// encodeIds; never fails. GPT-2's tokenizer adds no special tokens
  /// (transformers' GPT2Tokenizer has add_bos_token false), so neither
  /// does `addSpecialTokens`: a prompt is its text's ids.
  bool encode(std::string_view text, bool addSpecialTokens,
              std::vector<int> &ids, std::string &error) const override;
  /// The raw bytes of `token`; GPT-2 decoding does not depend on `prev`.
  std::string decode(int prev, int token) const override;
  int vocabSize() const override { return static_cast<int>(bytes_.size()); }
  /// Tokens are named in vocab.json's byte-to-unicode spelling ("Ġthe").
  int tokenId(std::string_view token) const override;
  std::string tokenString(int id) const override;
  int beginOfSequence() const override { return bos_; }

  /// Splits UTF-8 `text` like the regex
  ///   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+|
  ///   ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  /// with JavaScript's `u` semantics. Invalid UTF-8 bytes count as
  /// punctuation (neither letter, number nor space) and are kept verbatim.
  static std::vector<std::string_view> pretokenize(std::string_view text);

private:
  explicit Gpt2Tokenizer(int bos) : bos_(bos) {}
  /// Appends the ids of one pre-token (raw bytes), using the word cache.
  void encodeWord(std::string_view word, std::vector<int> &ids) const;
  /// Runs the merges on `word`; returns the final symbols' ids.
  std::vector<int> bpe(std::string_view word) const;
  /// Rank of merging `first` and `second`, or -1. Keyed like the reference's
  /// JavaScript object, whose keys are the pair joined with a comma.
  int rankOf(std::string_view first, std::string_view second,
             std::string &scratch) const;

  /// Raw bytes of each token, by id.
  std::vector<std::string> bytes_;
  std::unordered_map<std::string, int> ids_;
  /// "first,second" (raw bytes) -> merge rank; later merges win, like the
  /// reference's object built from the merge list.
  std::unordered_map<std::string, int> ranks_;
  int bos_;

  mutable std::mutex cacheMutex_;
  mutable std::unordered_map<std::string, std::vector<int>> cache_;
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_GPT2TOKENIZER_H
