//===- Tokenizer.h - Text <-> token ids for compiled models -----------------===//
//
// Two tokenizer kinds cover the supported model families:
//  - "spm":      SentencePiece-style BPE by piece score with byte fallback
//                (<0xXX> pieces), as llama2.c's run.c implements it. The blob
//                is a llama2.c `tokenizer.bin` (int32 max_token_length, then
//                per piece: float score, int32 length, bytes). GGUF llama
//                vocabularies and HF llama tokenizer.json are converted into it.
//  - "gpt2-bpe": GPT-2 byte-level BPE (regex pre-tokenisation, byte->unicode
//                map, merge ranks). The blob format is private to
//                Gpt2Tokenizer.cpp (serialize/deserialize round-trip).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_TOKENIZER_H
#define TFMC_RUNTIME_TOKENIZER_H

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt {

class Tokenizer {
public:
  virtual ~Tokenizer() = default;
  /// Encodes `text`; prepends the BOS id when `addBos` and the model has one.
  virtual std::vector<int> encode(std::string_view text, bool addBos) const = 0;
  /// The bytes token `token` prints as, given the previous token `prev`
  /// (SentencePiece drops the leading space of the first piece after BOS).
  virtual std::string decode(int prev, int token) const = 0;
  virtual int vocabSize() const = 0;
};

/// Builds a tokenizer from a package's "tokenizer.kind"/"tokenizer.data".
/// `bos`/`eos` are the model's special ids (-1 when absent). Returns null and
/// sets `error` on an unknown kind or a malformed blob.
std::unique_ptr<Tokenizer> loadTokenizer(std::string_view kind,
                                         std::string_view data, int bos,
                                         int eos, std::string &error);

//===-- Blob builders (used by the compiler's frontends) --------------------===//

/// Reads and validates a llama2.c tokenizer.bin; `expectedVocab` pieces.
bool spmBlobFromLlama2cFile(const std::string &path, int expectedVocab,
                            std::string &blob, std::string &error);
/// Builds an "spm" blob from pieces and scores (GGUF / tokenizer.json). Pieces
/// use spaces, not U+2581: callers convert.
std::string spmBlobFromPieces(const std::vector<std::string> &pieces,
                              const std::vector<float> &scores);
/// Builds a "gpt2-bpe" blob from GPT-2's vocab.json + merges.txt.
bool gpt2BlobFromFiles(const std::string &vocabJsonPath,
                       const std::string &mergesPath, std::string &blob,
                       std::string &error);
/// Builds a "gpt2-bpe" blob from in-memory vocab (id order) and merges
/// ("a b" lines, rank order); used for HF tokenizer.json.
std::string gpt2BlobFromVocab(const std::vector<std::string> &tokensById,
                              const std::vector<std::string> &merges);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_TOKENIZER_H
