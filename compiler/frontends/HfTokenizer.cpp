//===- HfTokenizer.cpp - Tokenizers of Hugging Face model directories -----===//
//
// tokenizer.json becomes the runtime's "hf" kind; GPT-2's vocab.json +
// merges.txt its "gpt2-bpe" kind; a llama2.c tokenizer.bin its "spm" kind.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"

#include "compiler/frontends/FrontendSupport.h"
#include "compiler/frontends/Gguf.h"
#include "runtime/Tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstring>
#include <limits>

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

/// tokenizer.json runs in the runtime's "hf" kind, which does what the file
/// declares (normalizer, pre-tokenizer, model, post-processor, decoder and
/// added tokens; docs/tokenizers.md), with the tokenizer_config.json beside
/// it when there is one. The blob builder loads it once, so a bad file fails
/// here.
llvm::Expected<TokenizerSpec> fromTokenizerJson(const std::string &path) {
  std::string configPath = joinPath(
      std::string(llvm::sys::path::parent_path(path)), "tokenizer_config.json");
  if (!llvm::sys::fs::exists(configPath))
    configPath.clear();
  TokenizerSpec spec;
  std::string error;
  if (!tfm::rt::hfBlobFromFiles(path, configPath, spec.blob, error)) {
    // The runtime's messages name the file they read, but not always.
    if (error.find(path) == std::string::npos)
      return llvm::createStringError("tokenizer '" + path + "': " + error);
    return llvm::createStringError("tokenizer " + error);
  }
  spec.kind = "hf";
  return spec;
}

llvm::Expected<TokenizerSpec>
fromVocabAndMerges(const std::string &vocabPath,
                   const std::string &mergesPath) {
  if (!llvm::sys::fs::exists(mergesPath))
    return llvm::createStringError("tokenizer '" + vocabPath + "' needs '" +
                                   mergesPath + "', which does not exist");
  TokenizerSpec spec;
  std::string error;
  if (!tfm::rt::gpt2BlobFromFiles(vocabPath, mergesPath, spec.blob, error)) {
    if (error.find(vocabPath) == std::string::npos &&
        error.find(mergesPath) == std::string::npos)
      error = "tokenizer '" + vocabPath + "': " + error;
    return llvm::createStringError(error);
  }
  spec.kind = "gpt2-bpe";
  return spec;
}

/// Reads a special id that may be an integer or a list (first element).
/// An id no token can have is an error, not a truncated int (2^32 + 1 is
/// not 1).
llvm::Expected<int> specialId(const llvm::json::Object &config,
                              llvm::StringRef key, int fallback) {
  const llvm::json::Value *value = config.get(key);
  if (!value)
    return fallback;
  std::optional<int64_t> id = value->getAsInteger();
  if (const llvm::json::Array *ids = value->getAsArray())
    if (!ids->empty())
      id = (*ids)[0].getAsInteger();
  if (!id)
    return fallback;
  if (*id < -1 || *id > std::numeric_limits<int32_t>::max())
    return llvm::createStringError("config.json's '" + key + "' " +
                                   llvm::Twine(*id) + " is not a token id");
  return static_cast<int>(*id);
}

} // namespace

llvm::Expected<TokenizerSpec>
tfmc::frontends::readHfTokenizer(const std::string &directory,
                                 const std::string &override,
                                 const llvm::json::Object &config,
                                 int64_t vocabSize, SpecialTokens defaults) {
  std::string tokenizerJson = joinPath(directory, "tokenizer.json");
  std::string vocabJson = joinPath(directory, "vocab.json");
  auto spec = [&]() -> llvm::Expected<TokenizerSpec> {
    if (!override.empty())
      return readTokenizerFile(override, vocabSize, defaults);
    if (llvm::sys::fs::exists(tokenizerJson))
      return fromTokenizerJson(tokenizerJson);
    if (llvm::sys::fs::exists(vocabJson))
      return fromVocabAndMerges(vocabJson, joinPath(directory, "merges.txt"));
    return TokenizerSpec();
  }();
  if (!spec || spec->kind.empty())
    return spec;
  auto bos = specialId(config, "bos_token_id", defaults.bos);
  if (!bos)
    return bos.takeError();
  auto eos = specialId(config, "eos_token_id", defaults.eos);
  if (!eos)
    return eos.takeError();
  auto pad = specialId(config, "pad_token_id", -1);
  if (!pad)
    return pad.takeError();
  spec->bos = *bos;
  spec->eos = *eos;
  spec->pad = *pad;
  return spec;
}

/// Whether the file at `path` begins with GGUF's magic.
static bool startsWithGgufMagic(const std::string &path) {
  char magic[4] = {};
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return false;
  size_t read = std::fread(magic, 1, sizeof(magic), file);
  std::fclose(file);
  return read == sizeof(magic) && std::memcmp(magic, "GGUF", 4) == 0;
}

llvm::Expected<TokenizerSpec>
tfmc::frontends::readTokenizerFile(const std::string &path, int64_t vocabSize,
                                   SpecialTokens ids) {
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError("tokenizer '" + path + "' does not exist");
  llvm::StringRef name = llvm::sys::path::filename(path);
  if (name.ends_with(".json")) {
    auto spec =
        name == "vocab.json"
            ? fromVocabAndMerges(
                  path,
                  joinPath(std::string(llvm::sys::path::parent_path(path)),
                           "merges.txt"))
            : fromTokenizerJson(path);
    if (spec) {
      spec->bos = ids.bos;
      spec->eos = ids.eos;
    }
    return spec;
  }
  // A GGUF model file as the tokenizer: the vocabulary it embeds, with its
  // own special ids, rather than its bytes read as a llama2.c tokenizer.
  if (startsWithGgufMagic(path)) {
    auto gguf = GgufFile::open(path);
    if (!gguf)
      return gguf.takeError();
    auto spec = readGgufTokenizer(**gguf, ids);
    if (spec && spec->kind.empty())
      return llvm::createStringError(
          "tokenizer '" + path +
          "' is a GGUF file without a vocabulary (no tokenizer.ggml.model)");
    return spec;
  }
  return readLlama2cTokenizer(path, vocabSize, ids);
}
