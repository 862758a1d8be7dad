//===- GgufUnigramTokenizer.cpp - GGUF's T5 Unigram vocabularies ----------===//
//
// llama.cpp stores a SentencePiece Unigram tokenizer (T5's) as the `t5`
// tokenizer model: pieces with U+2581 for spaces, their scores and token
// types, SentencePiece's normalization rules as the raw
// `precompiled_charsmap`, and the normalizer's switches
// `add_space_prefix` and `remove_extra_whitespaces`. llama.cpp normalizes
// with the charsmap, then (with remove_extra_whitespaces) drops leading
// and trailing spaces and merges runs of them, writes each space as U+2581
// and puts one before the text (with either switch), and finds the best
// segmentation by the scores; unknown characters become the unknown token,
// consecutive ones merged; it adds EOS (not BOS) unless the file says
// otherwise. This reader writes that as a tokenizer.json, run in the
// runtime's "hf" kind (Precompiled, Replace and Prepend normalizers,
// Metaspace split at each U+2581, Unigram), as GgufBpeTokenizer.cpp does
// for byte-level BPE. The one difference: a text of spaces only gets the
// prefix here, and not in llama.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"

#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/GgufTokenizerSupport.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

/// U+2581, SentencePiece's space.
constexpr llvm::StringLiteral kSpace = "\xE2\x96\x81";

llvm::json::Value regexReplace(llvm::StringRef pattern,
                               llvm::StringRef content) {
  return llvm::json::Object{{"type", "Replace"},
                            {"pattern", llvm::json::Object{{"Regex", pattern}}},
                            {"content", content}};
}

/// The charsmap's bytes (an array of uint8 or int8, as llama.cpp reads
/// it), empty when the file has none.
llvm::Expected<llvm::StringRef> readCharsmap(const GgufFile &file) {
  constexpr llvm::StringLiteral key = "tokenizer.ggml.precompiled_charsmap";
  const GgufValue *value = file.find(key);
  if (!value)
    return llvm::StringRef();
  if (value->type != kGgufArray ||
      (value->elementType != kGgufUInt8 && value->elementType != kGgufInt8))
    return ggufMetadataError(file, key, "must be an array of bytes");
  return value->elementBytes;
}

/// The id under `key` (`fallback` when absent) as an index into `count`
/// tokens; -1 stays "none" when `allowNone`.
llvm::Expected<int> tokenId(const GgufFile &file, llvm::StringRef key,
                            int64_t fallback, size_t count, bool allowNone) {
  auto id = file.integer(key, fallback);
  if (!id)
    return id.takeError();
  if (allowNone && *id == -1)
    return -1;
  if (*id < 0 || uint64_t(*id) >= count)
    return ggufMetadataError(file, key,
                             "is " + llvm::Twine(*id) +
                                 ", not a token id (the vocabulary has " +
                                 llvm::Twine(count) + " tokens)");
  return int(*id);
}

} // namespace

llvm::Expected<TokenizerSpec>
tfmc::frontends::readGgufUnigramTokenizer(const GgufFile &file,
                                          SpecialTokens defaults) {
  auto tokens = file.array("tokenizer.ggml.tokens", kGgufString);
  if (!tokens)
    return tokens.takeError();
  size_t count = (*tokens)->count;
  auto scores = readGgufScores(file, count);
  if (!scores)
    return scores.takeError();
  auto types = readGgufTokenTypes(file, count);
  if (!types)
    return types.takeError();
  auto charsmap = readCharsmap(file);
  if (!charsmap)
    return charsmap.takeError();
  auto spacePrefix = file.flag("tokenizer.ggml.add_space_prefix", true);
  if (!spacePrefix)
    return spacePrefix.takeError();
  auto mergeSpaces =
      file.flag("tokenizer.ggml.remove_extra_whitespaces", false);
  if (!mergeSpaces)
    return mergeSpaces.takeError();
  // llama.cpp's defaults for this model: no BOS, EOS 1, unknown 2.
  auto unknown = tokenId(file, "tokenizer.ggml.unknown_token_id", 2, count,
                         /*allowNone=*/false);
  if (!unknown)
    return unknown.takeError();
  auto bos = tokenId(file, "tokenizer.ggml.bos_token_id", defaults.bos, count,
                     /*allowNone=*/true);
  if (!bos)
    return bos.takeError();
  auto eos = tokenId(file, "tokenizer.ggml.eos_token_id", defaults.eos, count,
                     /*allowNone=*/true);
  if (!eos)
    return eos.takeError();

  // Every token keeps its id in the Unigram's vocabulary; control tokens
  // are also special added tokens and user-defined ones added tokens, both
  // matched in the text before the Unigram runs, as llama.cpp does.
  std::vector<std::string> texts;
  texts.reserve(count);
  (*tokens)->forEachElement(
      [&](const GgufValue &token) { texts.push_back(token.string.str()); });
  llvm::json::Array vocab, added;
  for (size_t id = 0; id < count; ++id) {
    vocab.push_back(llvm::json::Array{texts[id], double((*scores)[id])});
    int64_t type = (*types)[id];
    if (type == kTokenControl || type == kTokenUserDefined)
      added.push_back(llvm::json::Object{{"id", int64_t(id)},
                                         {"content", texts[id]},
                                         {"single_word", false},
                                         {"lstrip", false},
                                         {"rstrip", false},
                                         {"normalized", false},
                                         {"special", type == kTokenControl}});
  }

  llvm::json::Array normalizers;
  if (!charsmap->empty())
    normalizers.push_back(llvm::json::Object{
        {"type", "Precompiled"},
        {"precompiled_charsmap", llvm::encodeBase64(*charsmap)}});
  if (*mergeSpaces) {
    normalizers.push_back(regexReplace(" {2,}", " "));
    normalizers.push_back(regexReplace("^ | $", ""));
  }
  bool prefix = *spacePrefix || *mergeSpaces;
  if (prefix)
    normalizers.push_back(
        llvm::json::Object{{"type", "Prepend"}, {"prepend", kSpace}});
  // Metaspace writes the spaces as U+2581 and splits before each, which
  // SentencePiece's pieces never cross.
  llvm::json::Object preTokenizer{{"type", "Metaspace"},
                                  {"replacement", kSpace},
                                  {"prepend_scheme", "never"},
                                  {"split", true}};
  llvm::json::Object decoder{{"type", "Metaspace"},
                             {"replacement", kSpace},
                             {"prepend_scheme", prefix ? "always" : "never"},
                             {"split", true}};
  llvm::json::Object model{{"type", "Unigram"},
                           {"unk_id", int64_t(*unknown)},
                           {"byte_fallback", false},
                           {"vocab", std::move(vocab)}};
  llvm::json::Object tokenizerJson{
      {"version", "1.0"},
      {"added_tokens", std::move(added)},
      {"normalizer",
       llvm::json::Object{{"type", "Sequence"},
                          {"normalizers", std::move(normalizers)}}},
      {"pre_tokenizer", std::move(preTokenizer)},
      {"post_processor", nullptr},
      {"decoder", std::move(decoder)},
      {"model", std::move(model)}};

  // BOS/EOS are added where the file asks (llama.cpp: EOS only by default).
  const GgufAddedToken addedTokens[] = {{"tokenizer.ggml.add_bos_token", false,
                                         *bos, "add_bos_token", "bos_token"},
                                        {"tokenizer.ggml.add_eos_token", true,
                                         *eos, "add_eos_token", "eos_token"}};
  llvm::json::Object config{{"clean_up_tokenization_spaces", false}};
  if (llvm::Error error = readGgufAddedTokens(file, addedTokens, texts, config))
    return std::move(error);
  return hfTokenizerFromJson(file, "the Unigram vocabulary",
                             std::move(tokenizerJson), std::move(config), *bos,
                             *eos);
}
