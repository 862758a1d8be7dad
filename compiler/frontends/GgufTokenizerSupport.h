//===- GgufTokenizerSupport.h - GGUF tokenizer readers' helpers -*- C++ -*-===//
//
// llama.cpp's token types and the checks every reader of an embedded
// vocabulary (GgufBpeTokenizer.cpp, GgufWordPieceTokenizer.cpp,
// GgufUnigramTokenizer.cpp) makes on `tokenizer.ggml.*` keys.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_GGUFTOKENIZERSUPPORT_H
#define TFMC_COMPILER_FRONTENDS_GGUFTOKENIZERSUPPORT_H

#include "compiler/spec/TokenizerSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
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

/// One score per token (`count`), `tokenizer.ggml.scores`.
llvm::Expected<std::vector<float>> readGgufScores(const GgufFile &file,
                                                  size_t count);

/// A token a flag of the file asks the tokenizer to add around a text, as
/// tokenizer_config.json's `add_bos_token` / `add_eos_token` would.
struct GgufAddedToken {
  const char *flagKey; ///< the GGUF flag, e.g. tokenizer.ggml.add_eos_token
  bool fallback;       ///< its value when the file has none
  int id;              ///< the token; -1 when the file names none
  const char *addKey, *tokenKey; ///< tokenizer_config.json's keys
};

/// Sets `config`'s keys for each of `tokens` as its flag says; an error
/// when a flag asks for a token that `texts` (the vocabulary) lacks.
llvm::Error readGgufAddedTokens(const GgufFile &file,
                                llvm::ArrayRef<GgufAddedToken> tokens,
                                llvm::ArrayRef<std::string> texts,
                                llvm::json::Object &config);

/// The "hf" tokenizer that `tokenizerJson` with tokenizer_config.json's
/// `config` describes, with special ids `bos` and `eos`; an error naming
/// `vocabulary` (e.g. "the BPE vocabulary") of the file when the runtime
/// refuses it.
llvm::Expected<TokenizerSpec>
hfTokenizerFromJson(const GgufFile &file, llvm::StringRef vocabulary,
                    llvm::json::Object tokenizerJson, llvm::json::Object config,
                    int bos, int eos);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_GGUFTOKENIZERSUPPORT_H
