//===- Llama2cTokenizer.cpp - llama2.c tokenizer.bin files ----------------===//
#include "compiler/frontends/Tokenizers.h"

#include "runtime/Tokenizer.h"

#include "llvm/Support/FileSystem.h"

using namespace tfmc;

llvm::Expected<TokenizerSpec>
tfmc::frontends::readLlama2cTokenizer(const std::string &path,
                                      int64_t vocabSize, SpecialTokens ids) {
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError("tokenizer '" + path + "' does not exist");
  TokenizerSpec tokenizer;
  std::string error;
  if (!tfm::rt::spmBlobFromLlama2cFile(path, static_cast<int>(vocabSize),
                                       tokenizer.blob, error)) {
    if (error.find(path) == std::string::npos)
      error = "tokenizer '" + path + "': " + error;
    return llvm::createStringError(error);
  }
  tokenizer.kind = "spm";
  tokenizer.bos = ids.bos;
  tokenizer.eos = ids.eos;
  return tokenizer;
}
