//===- HfTokenizer.h - The "hf" tokenizer kind: a tokenizer.json ----------===//
//
// Encodes as a Hugging Face tokenizer.json declares: added tokens are split
// out of the raw text, the rest is normalized (normalized added tokens are
// split out of that), pre-tokenized and encoded piece by piece by the
// model; with special tokens requested, the post-processor (or
// tokenizer_config.json's add_bos_token/add_eos_token) adds them. Decoding
// skips special tokens, runs the decoder chain and, when
// tokenizer_config.json asks for it, transformers' clean-up of spaces.
// docs/tokenizers.md lists the components and where the implementation
// follows @huggingface/tokenizers or the Rust tokenizers.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_HFTOKENIZER_H
#define TFMC_RUNTIME_HF_HFTOKENIZER_H

#include "runtime/Tokenizer.h"
#include "runtime/hf/AddedTokens.h"
#include "runtime/hf/Components.h"
#include "runtime/hf/HfBlob.h"

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace tfm::rt::hf {

class HfTokenizer : public Tokenizer {
public:
  /// Parses and validates an "hf" blob (HfBlob.h). `bos`/`eos` are the
  /// model's ids (-1 when absent) and must name tokens.
  static std::unique_ptr<HfTokenizer> create(std::string_view blob, int bos,
                                             int eos, std::string &error);

  using Tokenizer::encode;
  bool encode(std::string_view text, bool addSpecialTokens,
              std::vector<int> &ids, std::string &error) const override;
  /// The text `token` adds after `prev` (a character split over tokens
  /// prints as U+FFFD: print through a Detokenizer).
  std::string decode(int prev, int token) const override;
  std::unique_ptr<Detokenizer> detokenizer() const override;
  int vocabSize() const override { return vocab_.size(); }
  int tokenId(std::string_view token) const override {
    return vocab_.find(token);
  }
  std::string tokenString(int id) const override;

  /// HF's decode(ids, skip_special_tokens): special tokens left out, the
  /// decoder chain, then the clean-up tokenizer_config.json asks for.
  std::string decodeIds(const std::vector<int> &ids,
                        bool skipSpecialTokens) const;
  /// decodeIds without the clean-up; `streaming` holds back a final
  /// incomplete character.
  std::string decodeRaw(const std::vector<int> &ids, bool skipSpecialTokens,
                        bool streaming) const;
  /// Whether `id` is a special added token (skipped when decoding).
  bool isSpecial(int id) const {
    return id >= 0 && id < static_cast<int>(special_.size()) && special_[id];
  }
  bool cleansUpSpaces() const { return cleanUpSpaces_; }

private:
  HfTokenizer() = default;
  bool load(std::string_view tokenizerJson, const ConfigFacts &facts,
            std::string &error);
  bool loadAddedTokens(const JsonValue *list, std::string &error);
  bool choosePostProcessor(const JsonValue &root, const ConfigFacts &facts,
                           std::string &error);
  /// Normalizes, pre-tokenizes and encodes one stretch of plain text.
  bool encodeText(std::u32string text, bool atStart, std::vector<int> &ids,
                  std::string &error) const;

  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> preTokenizer_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<PostProcessor> postProcessor_;
  std::unique_ptr<Decoder> decoder_;

  /// The model's tokens and the added ones.
  Vocabulary vocab_;
  std::vector<AddedToken> added_;
  AddedTokenMatcher rawMatcher_, normalizedMatcher_;
  std::unordered_set<std::string> addedContents_;
  std::vector<bool> special_;
  bool cleanUpSpaces_ = false;
};

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_HFTOKENIZER_H
