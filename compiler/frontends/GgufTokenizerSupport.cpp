//===- GgufTokenizerSupport.cpp - What GGUF's tokenizer readers share -----===//
#include "compiler/frontends/GgufTokenizerSupport.h"

#include "compiler/frontends/Gguf.h"
#include "runtime/Tokenizer.h"

#include "llvm/Support/raw_ostream.h"

using namespace tfmc;
using namespace tfmc::frontends;

llvm::Error tfmc::frontends::ggufMetadataError(const GgufFile &file,
                                               llvm::StringRef key,
                                               const llvm::Twine &message) {
  return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                 file.path() + "' " + message);
}

llvm::Expected<std::vector<int64_t>>
tfmc::frontends::readGgufTokenTypes(const GgufFile &file, size_t count) {
  std::vector<int64_t> types(count, kTokenNormal);
  const GgufValue *typeArray = file.find("tokenizer.ggml.token_type");
  if (!typeArray)
    return types;
  bool integers = typeArray->type == kGgufArray && typeArray->count == count;
  if (integers) {
    size_t index = 0;
    typeArray->forEachElement([&](const GgufValue &type) {
      integers &= type.isInteger();
      types[index++] = type.isSigned() ? type.sint : int64_t(type.uint);
    });
  }
  if (!integers)
    return ggufMetadataError(
        file, "tokenizer.ggml.token_type",
        "must be an array of one integer type per token (" +
            llvm::Twine(count) + ")");
  return types;
}

llvm::Expected<std::vector<float>>
tfmc::frontends::readGgufScores(const GgufFile &file, size_t count) {
  auto scores = file.array("tokenizer.ggml.scores", kGgufFloat32);
  if (!scores)
    return scores.takeError();
  if ((*scores)->count != count)
    return ggufMetadataError(file, "tokenizer.ggml.scores",
                             "has " + llvm::Twine((*scores)->count) +
                                 " scores for " + llvm::Twine(count) +
                                 " tokens");
  // The count was checked against the file's size when it was read.
  std::vector<float> values;
  values.reserve(count);
  (*scores)->forEachElement([&](const GgufValue &score) {
    values.push_back(static_cast<float>(score.real));
  });
  return values;
}

llvm::Error tfmc::frontends::readGgufAddedTokens(
    const GgufFile &file, llvm::ArrayRef<GgufAddedToken> tokens,
    llvm::ArrayRef<std::string> texts, llvm::json::Object &config) {
  for (const GgufAddedToken &token : tokens) {
    auto wanted = file.flag(token.flagKey, token.fallback);
    if (!wanted)
      return wanted.takeError();
    config[token.addKey] = *wanted;
    if (!*wanted)
      continue;
    if (token.id < 0 || size_t(token.id) >= texts.size())
      return ggufMetadataError(file, token.flagKey,
                               "asks to add a token, but the file has no such "
                               "token id (" +
                                   llvm::Twine(token.id) + ")");
    config[token.tokenKey] = texts[token.id];
  }
  return llvm::Error::success();
}

llvm::Expected<TokenizerSpec> tfmc::frontends::hfTokenizerFromJson(
    const GgufFile &file, llvm::StringRef vocabulary,
    llvm::json::Object tokenizerJson, llvm::json::Object config, int bos,
    int eos) {
  std::string jsonText, configText;
  llvm::raw_string_ostream(jsonText)
      << llvm::json::Value(std::move(tokenizerJson));
  llvm::raw_string_ostream(configText) << llvm::json::Value(std::move(config));
  TokenizerSpec spec;
  std::string error;
  if (!tfm::rt::hfBlobFromJson(jsonText, configText, spec.blob, error))
    return llvm::createStringError(vocabulary + " of '" + file.path() +
                                   "': " + error);
  spec.kind = "hf";
  spec.bos = bos;
  spec.eos = eos;
  return spec;
}
