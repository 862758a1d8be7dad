//===- GgufTokenizer.cpp - The vocabulary embedded in GGUF metadata -------===//
//
// A "llama" tokenizer model in GGUF is a SentencePiece vocabulary (pieces
// with U+2581 for spaces, scores); it becomes an "spm" blob.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"

#include "compiler/frontends/FrontendSupport.h"
#include "compiler/frontends/Gguf.h"
#include "runtime/Tokenizer.h"

using namespace tfmc;
using namespace tfmc::frontends;

llvm::Expected<TokenizerSpec>
tfmc::frontends::readGgufTokenizer(const GgufFile &file,
                                   SpecialTokens defaults) {
  if (!file.find("tokenizer.ggml.model"))
    return TokenizerSpec();
  auto model = file.string("tokenizer.ggml.model", std::nullopt);
  if (!model)
    return model.takeError();
  if (*model != "llama")
    return llvm::createStringError(file.describe() + " has tokenizer model '" +
                                   *model + "' (supported: llama)");
  auto tokens = file.array("tokenizer.ggml.tokens", kGgufString);
  if (!tokens)
    return tokens.takeError();
  auto scores = file.array("tokenizer.ggml.scores", kGgufFloat32);
  if (!scores)
    return scores.takeError();
  size_t count = (*tokens)->elements.size();
  if ((*scores)->elements.size() != count)
    return llvm::createStringError(
        file.describe() + " has " + llvm::Twine(count) + " tokens but " +
        llvm::Twine((*scores)->elements.size()) + " scores");
  std::vector<std::string> pieces;
  std::vector<float> pieceScores;
  pieces.reserve(count);
  pieceScores.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    pieces.push_back(metaspaceToSpace((*tokens)->elements[i].string));
    pieceScores.push_back(static_cast<float>((*scores)->elements[i].real));
  }
  auto bos = file.integer("tokenizer.ggml.bos_token_id", defaults.bos);
  if (!bos)
    return bos.takeError();
  auto eos = file.integer("tokenizer.ggml.eos_token_id", defaults.eos);
  if (!eos)
    return eos.takeError();
  TokenizerSpec tokenizer;
  tokenizer.kind = "spm";
  tokenizer.blob = tfm::rt::spmBlobFromPieces(pieces, pieceScores);
  tokenizer.bos = static_cast<int>(*bos);
  tokenizer.eos = static_cast<int>(*eos);
  return tokenizer;
}
