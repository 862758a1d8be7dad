//===- GgufTokenizerSupport.h - GGUF tokenizer readers' helpers -*- C++ -*-===//
//
// llama.cpp's token types and the checks every reader of an embedded
// vocabulary (GgufBpeTokenizer.cpp, GgufWordPieceTokenizer.cpp,
// GgufUnigramTokenizer.cpp) makes on `tokenizer.ggml.*` keys.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_GGUFTOKENIZERSUPPORT_H
#define TFMC_COMPILER_FRONTENDS_GGUFTOKENIZERSUPPORT_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tfmc::frontends {

class GgufFile;

/// llama.cpp's token types (llama_token_type), `tokenizer.ggml.token_type`.
enum GgufTokenType : int64_t {
  kTokenNormal = 1,
  kTokenUnknown = 2,
  kTokenControl = 3,     ///< special: matched in text, skipped in output
  kTokenUserDefined = 4, ///< added: matched in text before the model runs
  kTokenUnused = 5,
  kTokenByte = 6,
};

/// "GGUF metadata key 'KEY' in 'PATH' MESSAGE".
llvm::Error ggufMetadataError(const GgufFile &file, llvm::StringRef key,
                              const llvm::Twine &message);

/// One token type per token (`count`); all normal when the file has none.
llvm::Expected<std::vector<int64_t>> readGgufTokenTypes(const GgufFile &file,
                                                        size_t count);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_GGUFTOKENIZERSUPPORT_H
