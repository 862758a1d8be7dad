//===- Components.h - The stages of a tokenizer.json pipeline ---*- C++ -*-===//
//
// A tokenizer.json declares a normalizer, a pre-tokenizer, a model, a
// post-processor and a decoder. Each stage is an interface here with one
// factory that reads its JSON object, validates it (an unknown "type" is
// an error naming it) and builds the implementation from its own file.
// Text flows through encoding as code points; decoding works on the
// vocabulary strings (UTF-8) of the ids.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_COMPONENTS_H
#define TFMC_RUNTIME_HF_COMPONENTS_H

#include "runtime/hf/Json.h"
#include "runtime/hf/Vocabulary.h"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tfm::rt::hf {

//===-- Normalizers -------------------------------------------------------===//

class Normalizer {
public:
  virtual ~Normalizer() = default;
  /// Rewrites `text`; false and `error` when a regex exhausts its budget.
  virtual bool normalize(std::u32string &text, std::string &error) const = 0;
};

/// `config` is tokenizer.json's "normalizer" (not null); `path` names it.
std::unique_ptr<Normalizer> createNormalizer(const JsonValue &config,
                                             const std::string &path,
                                             std::string &error);
/// SentencePiece's precompiled charsmap (Normalizers.cpp parses the JSON).
std::unique_ptr<Normalizer> createPrecompiled(std::string_view charsmap,
                                              const std::string &path,
                                              std::string &error);

//===-- Pre-tokenizers ----------------------------------------------------===//

/// A piece of the text on its way to the model. `atStart`: it begins at
/// offset 0 of the input (Metaspace's prepend_scheme "first").
struct PreToken {
  std::u32string text;
  bool atStart = false;
};

class PreTokenizer {
public:
  virtual ~PreTokenizer() = default;
  /// Splits (and may rewrite) every piece of `pieces`, in order; empty
  /// pieces are dropped.
  virtual bool preTokenize(std::vector<PreToken> &pieces,
                           std::string &error) const = 0;
  /// Whether pieces come out in GPT-2's byte-level alphabet.
  virtual bool isByteLevel() const { return false; }
};

std::unique_ptr<PreTokenizer> createPreTokenizer(const JsonValue &config,
                                                 const std::string &path,
                                                 std::string &error);

//===-- Models ------------------------------------------------------------===//

class Model {
public:
  virtual ~Model() = default;
  /// Appends the ids of one pre-token.
  virtual void encode(const std::u32string &piece,
                      std::vector<int> &ids) const = 0;
  /// The model's own tokens (added tokens are not among them).
  virtual const Vocabulary &vocabulary() const = 0;
  /// Checks that every byte of a byte-level pre-tokenizer's alphabet can be
  /// encoded, so that no text silently loses bytes.
  virtual bool checkByteLevelAlphabet(std::string &error) const;
};

/// `config` is tokenizer.json's "model".
std::unique_ptr<Model> createModel(const JsonValue &config,
                                   const std::string &path, std::string &error);
std::unique_ptr<Model> createBpeModel(const JsonReader &reader,
                                      std::string &error);
std::unique_ptr<Model> createWordPieceModel(const JsonReader &reader,
                                            std::string &error);
std::unique_ptr<Model> createWordLevelModel(const JsonReader &reader,
                                            std::string &error);
std::unique_ptr<Model> createUnigramModel(const JsonReader &reader,
                                          std::string &error);

//===-- Post-processors ---------------------------------------------------===//

class PostProcessor {
public:
  virtual ~PostProcessor() = default;
  /// Adds special tokens around the ids of one sequence (nothing unless
  /// `addSpecialTokens`).
  virtual void process(std::vector<int> &ids, bool addSpecialTokens) const = 0;
  /// Checks that every id it adds lies in `vocabulary`.
  virtual bool validate(const Vocabulary &vocabulary,
                        std::string &error) const = 0;
};

std::unique_ptr<PostProcessor> createPostProcessor(const JsonValue &config,
                                                   const std::string &path,
                                                   std::string &error);
/// The template transformers builds from tokenizer_config.json's
/// add_bos_token/add_eos_token: [bos] $A [eos]; an id of -1 is left out.
std::unique_ptr<PostProcessor> createBosEosProcessor(int bos, int eos);

//===-- Decoders ----------------------------------------------------------===//

struct DecodeContext {
  /// Contents of the added tokens, which byte-level decoding keeps as is.
  const std::unordered_set<std::string> *addedTokens = nullptr;
  /// Set while streaming: bytes at the very end that only more tokens
  /// could complete into a character are left out instead of becoming
  /// U+FFFD.
  bool streaming = false;
};

class Decoder {
public:
  virtual ~Decoder() = default;
  /// Rewrites the token strings of one sequence (and may join them).
  virtual void decodeChain(std::vector<std::string> &tokens,
                           const DecodeContext &context) const = 0;
};

std::unique_ptr<Decoder> createDecoder(const JsonValue &config,
                                       const std::string &path,
                                       std::string &error);

/// transformers' clean_up_tokenization: " ." -> ".", " n't" -> "n't", ...
std::string cleanUpTokenization(std::string_view text);
/// cleanUpTokenization over text that arrives in pieces: what push()
/// returns no later text can change, and the concatenation of all it and
/// finish() return is the clean-up of the whole text.
class CleanUpStream {
public:
  std::string push(std::string_view raw);
  std::string finish();

private:
  /// Raw text not cleaned yet, and the last raw bytes before it.
  std::string pending_, tail_;
};

//===-- Helpers shared by the factories -----------------------------------===//

/// Reads member "type"; false and `error` when it is missing.
bool readType(const JsonReader &reader, std::string &type, std::string &error);
/// "unsupported <what> type '<type>' in tokenizer.json (at '<path>')".
std::string unsupportedType(const char *what, const std::string &type,
                            const std::string &path);

/// The steps of a Sequence component: each entry of array member `key`
/// built by `create(config, path, error)` (createNormalizer, ...), null
/// entries skipped. False and `error` on the first that fails.
template <typename Step, typename Create>
bool createSteps(const JsonReader &reader, std::string_view key, Create create,
                 std::vector<std::unique_ptr<Step>> &steps,
                 std::string &error) {
  const JsonValue *list;
  if (!reader.readArray(key, list, error, /*required=*/true))
    return false;
  for (size_t i = 0; i < list->array.size(); ++i) {
    if (list->array[i].isNull())
      continue;
    std::unique_ptr<Step> step =
        create(list->array[i],
               reader.pathOf(key) + "[" + std::to_string(i) + "]", error);
    if (!step)
      return false;
    steps.push_back(std::move(step));
  }
  return true;
}

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_COMPONENTS_H
