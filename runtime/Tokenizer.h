//===- Tokenizer.h - Text <-> token ids for compiled models ---------------===//
//
// Three tokenizer kinds cover the supported model families:
//  - "spm":      SentencePiece-style BPE by piece score with byte fallback
//                (<0xXX> pieces), as llama2.c's run.c implements it. The blob
//                is a llama2.c `tokenizer.bin` (int32 max_token_length, then
//                per piece: float score, int32 length, bytes). GGUF llama
//                vocabularies are converted into it.
//  - "gpt2-bpe": GPT-2 byte-level BPE (regex pre-tokenisation, byte->unicode
//                map, merge ranks). The blob format is private to
//                Gpt2Tokenizer.cpp (serialize/deserialize round-trip).
//  - "hf":       a Hugging Face tokenizer.json, doing what the file declares
//                (normalizer, pre-tokenizer, model, post-processor, decoder,
//                added tokens). The blob is the file's text behind a small
//                header with the tokenizer_config.json facts that matter
//                (runtime/hf/HfBlob.h); docs/tokenizers.md describes it.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_TOKENIZER_H
#define TFMC_RUNTIME_TOKENIZER_H

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt {

/// Turns generated ids into text one id at a time. The concatenation of
/// everything step() and finish() return is the text of the whole sequence,
/// special tokens skipped; a step returns nothing while its id leaves a
/// character (or, for some decoders, a clean-up) incomplete.
class Detokenizer {
public:
  virtual ~Detokenizer() = default;
  /// The text that `id` completes.
  virtual std::string step(int id) = 0;
  /// Whatever is still held back once the sequence ends (an incomplete
  /// character prints as U+FFFD).
  virtual std::string finish() = 0;
};

class Tokenizer {
public:
  virtual ~Tokenizer() = default;
  /// Encodes `text` into `ids`. With `addSpecialTokens`, adds what the
  /// tokenizer adds around a text: "spm" prepends the model's BOS (when it
  /// has one), "gpt2-bpe" adds nothing (as GPT-2's tokenizer); "hf" applies its
  /// post-processor, or the add_bos_token/add_eos_token of
  /// tokenizer_config.json. Returns false and sets `error` when the text cannot
  /// be encoded (an "hf" pre-tokenizer regex that exhausts its step budget on
  /// this text).
  virtual bool encode(std::string_view text, bool addSpecialTokens,
                      std::vector<int> &ids, std::string &error) const = 0;
  /// The same, for callers that treat failure as no ids (tests, tools).
  std::vector<int> encode(std::string_view text, bool addSpecialTokens) const;

  /// The bytes token `token` prints as, given the previous token `prev`
  /// (SentencePiece drops the leading space of the first piece after BOS).
  /// Exact for "spm" and "gpt2-bpe" only: use a Detokenizer to print.
  virtual std::string decode(int prev, int token) const = 0;
  /// A fresh streaming decoder of this tokenizer.
  virtual std::unique_ptr<Detokenizer> detokenizer() const;

  /// Number of ids (the largest id + 1).
  virtual int vocabSize() const = 0;
  /// The id of vocabulary string `token` (e.g. "[MASK]"), or -1.
  virtual int tokenId(std::string_view token) const = 0;
  /// The vocabulary string of `id` (e.g. "##ing", or "Ġthe" for byte-level
  /// vocabularies), or "" when `id` names no token.
  virtual std::string tokenString(int id) const = 0;
  /// The id that "spm"/"gpt2-bpe" detokenizers skip and after which "spm"
  /// drops a leading space (the model's BOS), or -1.
  virtual int beginOfSequence() const { return -1; }
};

/// Builds a tokenizer from a package's "tokenizer.kind"/"tokenizer.data".
/// `bos`/`eos` are the model's special ids (-1 when absent). Returns null and
/// sets `error` on an unknown kind or a malformed blob.
std::unique_ptr<Tokenizer> loadTokenizer(std::string_view kind,
                                         std::string_view data, int bos,
                                         int eos, std::string &error);

//===-- Blob builders (used by the compiler's frontends) -----------------===//

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
/// Builds an "hf" blob from a tokenizer.json and, when
/// `tokenizerConfigPath` is not empty, the tokenizer_config.json next to it
/// (add_bos_token, add_eos_token, bos_token, eos_token,
/// clean_up_tokenization_spaces). The tokenizer is built once to validate
/// it, so a bad file fails here, naming the file and the key.
bool hfBlobFromFiles(const std::string &tokenizerJsonPath,
                     const std::string &tokenizerConfigPath, std::string &blob,
                     std::string &error);
/// The same from file contents; `tokenizerConfigJson` may be empty.
bool hfBlobFromJson(std::string_view tokenizerJson,
                    std::string_view tokenizerConfigJson, std::string &blob,
                    std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_TOKENIZER_H
