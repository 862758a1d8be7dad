//===- SpmTokenizer.h - llama2.c-style SentencePiece tokenizer --*- C++ -*-===//
//
// The "spm" tokenizer kind: score-ordered BPE over a llama2.c tokenizer.bin
// vocabulary with <0xXX> byte fallback, reproducing run.c's encode/decode.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_SPMTOKENIZER_H
#define TFMC_RUNTIME_SPMTOKENIZER_H

#include "runtime/Tokenizer.h"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tfm::rt {

class SpmTokenizer : public Tokenizer {
public:
  /// Parses a llama2.c tokenizer.bin blob. Returns null and sets `error` when
  /// the blob is truncated or holds an invalid piece length.
  /// `bos` is the model's BOS id (-1 when absent); encode never appends EOS,
  /// so the tokenizer does not need that id.
  static std::unique_ptr<SpmTokenizer> create(std::string_view blob, int bos,
                                              std::string &error);

  /// run.c's encode: [BOS] [" "] then code points (byte fallback id = byte+3),
  /// then repeatedly merge the adjacent pair whose concatenation is the
  /// vocabulary piece with the highest score (leftmost on ties).
  std::vector<int> encodeIds(std::string_view text, bool addBos) const;
  using Tokenizer::encode;
  /// encodeIds; never fails.
  bool encode(std::string_view text, bool addBos, std::vector<int> &ids,
              std::string &error) const override;
  /// run.c's decode: the piece, minus its leading space right after BOS;
  /// "<0xXX>" pieces become the raw byte.
  std::string decode(int prev, int token) const override;
  int vocabSize() const override { return static_cast<int>(pieces_.size()); }
  /// Pieces are spelled with spaces, as in tokenizer.bin.
  int tokenId(std::string_view token) const override { return lookup(token); }
  std::string tokenString(int id) const override;
  int beginOfSequence() const override { return bos_; }

private:
  explicit SpmTokenizer(int bos) : bos_(bos) {}
  /// Id of `piece`, or -1.
  int lookup(std::string_view piece) const;
  /// Appends the ids of one UTF-8 chunk (a code point, or stray bytes).
  void appendChunk(std::string_view chunk, std::vector<int> &ids) const;
  /// Applies score-ordered merges to `ids` in place.
  void mergePairs(std::vector<int> &ids) const;

  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  /// What each piece prints as (byte pieces already unescaped).
  std::vector<std::string> decoded_;
  std::unordered_map<std::string_view, int> ids_;
  int bos_;
};

/// Parses the llama2.c tokenizer.bin layout into pieces and scores; false and
/// `error` on a malformed blob. Shared by the tokenizer and the blob builders.
bool parseSpmBlob(std::string_view blob, std::vector<std::string> &pieces,
                  std::vector<float> &scores, std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_SPMTOKENIZER_H
