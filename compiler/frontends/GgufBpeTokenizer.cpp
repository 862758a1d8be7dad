//===- GgufBpeTokenizer.cpp - GGUF's byte-level BPE vocabularies ----------===//
//
// llama.cpp stores a byte-level BPE tokenizer (GPT-2, Qwen2, Llama 3,
// BLOOM) as the `gpt2` tokenizer model: tokens (in GPT-2's byte-to-unicode
// alphabet), token types, merges "a b" in rank order, and
// `tokenizer.ggml.pre`, the
// name of the pre-tokenizer the model was converted with. The file records
// what the original tokenizer.json did only through that name, so this
// reader writes the tokenizer.json each known name stands for and runs it
// in the runtime's "hf" kind: one implementation of byte-level BPE, checked
// against Hugging Face's own (docs/tokenizers.md).
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"

#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/GgufTokenizerSupport.h"

#include "llvm/Support/JSON.h"

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

constexpr const char *kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
// Llama 3's: Qwen2's with numbers in runs of at most three digits.
constexpr const char *kLlama3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char *kBloomPattern =
    " ?[^(\\s|[.,!?\u2026\u3002\uff0c\u3001\u0964\u06d4\u060c])]+";

llvm::json::Value byteLevel(bool useRegex) {
  return llvm::json::Object{{"type", "ByteLevel"},
                            {"add_prefix_space", false},
                            {"trim_offsets", true},
                            {"use_regex", useRegex}};
}

/// A Split by `pattern`, then ByteLevel without GPT-2's regex.
llvm::json::Value splitThenByteLevel(const char *pattern) {
  llvm::json::Object split{{"type", "Split"},
                           {"pattern", llvm::json::Object{{"Regex", pattern}}},
                           {"behavior", "Isolated"},
                           {"invert", false}};
  return llvm::json::Object{
      {"type", "Sequence"},
      {"pretokenizers", llvm::json::Array{std::move(split), byteLevel(false)}}};
}

/// The normalizer and pre-tokenizer of the tokenizer.json that
/// `tokenizer.ggml.pre` names, and whether its BPE takes a word that is a
/// token whole before merging (`ignore_merges`); false for a name not
/// known here.
bool preTokenizerFor(llvm::StringRef name, llvm::json::Value &normalizer,
                     llvm::json::Value &preTokenizer, bool &ignoreMerges) {
  normalizer = nullptr;
  ignoreMerges = false;
  if (name == "gpt-2" || name == "default") {
    preTokenizer = byteLevel(true);
    return true;
  }
  if (name == "qwen2") {
    normalizer = llvm::json::Object{{"type", "NFC"}};
    preTokenizer = splitThenByteLevel(kQwen2Pattern);
    return true;
  }
  // Llama 3.x (and Smaug, converted with Llama 3's tokenizer): no
  // normalizer, and its tokenizer.json's ignore_merges, as llama.cpp
  // applies it for this name.
  if (name == "llama-bpe" || name == "smaug-bpe") {
    preTokenizer = splitThenByteLevel(kLlama3Pattern);
    ignoreMerges = true;
    return true;
  }
  if (name == "bloom") {
    preTokenizer = splitThenByteLevel(kBloomPattern);
    return true;
  }
  return false;
}

} // namespace

llvm::Expected<TokenizerSpec>
tfmc::frontends::readGgufBpeTokenizer(const GgufFile &file, int bos, int eos) {
  auto pre = file.string("tokenizer.ggml.pre", std::string("default"));
  if (!pre)
    return pre.takeError();
  llvm::json::Value normalizer = nullptr, preTokenizer = nullptr;
  bool ignoreMerges = false;
  if (!preTokenizerFor(*pre, normalizer, preTokenizer, ignoreMerges))
    return ggufMetadataError(
        file, "tokenizer.ggml.pre",
        "names pre-tokenizer '" + *pre +
            "' (supported: default, gpt-2, qwen2, llama-bpe, smaug-bpe, "
            "bloom)");
  auto tokens = file.array("tokenizer.ggml.tokens", kGgufString);
  if (!tokens)
    return tokens.takeError();
  auto merges = file.array("tokenizer.ggml.merges", kGgufString);
  if (!merges)
    return merges.takeError();
  auto types = readGgufTokenTypes(file, (*tokens)->count);
  if (!types)
    return types.takeError();

  // Control and user-defined tokens are added tokens (matched in the text
  // before the BPE runs; control ones are special); the rest the BPE's.
  llvm::json::Object vocab;
  llvm::json::Array added;
  std::vector<std::string> texts;
  texts.reserve(types->size());
  (*tokens)->forEachElement(
      [&](const GgufValue &token) { texts.push_back(token.string.str()); });
  for (size_t id = 0; id < texts.size(); ++id) {
    if ((*types)[id] == kTokenControl || (*types)[id] == kTokenUserDefined) {
      added.push_back(
          llvm::json::Object{{"id", int64_t(id)},
                             {"content", texts[id]},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", false},
                             {"special", (*types)[id] == kTokenControl}});
      continue;
    }
    vocab[texts[id]] = int64_t(id);
  }
  llvm::json::Array mergeList;
  (*merges)->forEachElement(
      [&](const GgufValue &merge) { mergeList.push_back(merge.string.str()); });

  llvm::json::Object model{{"type", "BPE"},
                           {"dropout", nullptr},
                           {"unk_token", nullptr},
                           {"continuing_subword_prefix", nullptr},
                           {"end_of_word_suffix", nullptr},
                           {"fuse_unk", false},
                           {"byte_fallback", false},
                           {"ignore_merges", ignoreMerges},
                           {"vocab", std::move(vocab)},
                           {"merges", std::move(mergeList)}};
  llvm::json::Object tokenizerJson{{"version", "1.0"},
                                   {"added_tokens", std::move(added)},
                                   {"normalizer", std::move(normalizer)},
                                   {"pre_tokenizer", std::move(preTokenizer)},
                                   {"post_processor", nullptr},
                                   {"decoder", byteLevel(true)},
                                   {"model", std::move(model)}};

  // BOS/EOS are added where the file asks (llama.cpp: add_bos_token, off by
  // default for this model).
  const GgufAddedToken addedTokens[] = {{"tokenizer.ggml.add_bos_token", false,
                                         bos, "add_bos_token", "bos_token"},
                                        {"tokenizer.ggml.add_eos_token", false,
                                         eos, "add_eos_token", "eos_token"}};
  llvm::json::Object config;
  if (llvm::Error error = readGgufAddedTokens(file, addedTokens, texts, config))
    return std::move(error);
  return hfTokenizerFromJson(file, "the BPE vocabulary",
                             std::move(tokenizerJson), std::move(config), bos,
                             eos);
}
