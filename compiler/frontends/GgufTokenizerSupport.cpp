//===- GgufTokenizerSupport.cpp - What GGUF's tokenizer readers share -----===//
#include "compiler/frontends/GgufTokenizerSupport.h"

#include "compiler/frontends/Gguf.h"

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
