//===- GgufTokenizer.cpp - The vocabulary embedded in GGUF metadata -------===//
//
// A "llama" tokenizer model in GGUF is a SentencePiece vocabulary (pieces
// with U+2581 for spaces, scores); it becomes an "spm" blob. A "gpt2" one
// is a byte-level BPE (GgufBpeTokenizer.cpp), a "bert" one a WordPiece
// (GgufWordPieceTokenizer.cpp), a "t5" one a Unigram
// (GgufUnigramTokenizer.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"

#include "compiler/frontends/FrontendSupport.h"
#include "compiler/frontends/Gguf.h"
#include "compiler/frontends/GgufTokenizerSupport.h"
#include "runtime/Tokenizer.h"

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

/// The "llama" model's pieces and scores as an "spm" blob.
llvm::Expected<std::string> readSpmBlob(const GgufFile &file) {
  auto tokens = file.array("tokenizer.ggml.tokens", kGgufString);
  if (!tokens)
    return tokens.takeError();
  uint64_t count = (*tokens)->count;
  auto scores = readGgufScores(file, count);
  if (!scores)
    return scores.takeError();
  // The count was checked against the file's size when it was read, so
  // this holds at most a few times its bytes.
  std::vector<std::string> pieces;
  pieces.reserve(count);
  (*tokens)->forEachElement([&](const GgufValue &token) {
    pieces.push_back(metaspaceToSpace(token.string));
  });
  return tfm::rt::spmBlobFromPieces(pieces, *scores);
}

/// The vocabulary of the file's tokenizer model, with its BOS and EOS.
llvm::Expected<TokenizerSpec> readVocabulary(const GgufFile &file,
                                             SpecialTokens defaults) {
  if (!file.find("tokenizer.ggml.model"))
    return TokenizerSpec();
  auto model = file.string("tokenizer.ggml.model", std::nullopt);
  if (!model)
    return model.takeError();
  if (*model == "bert")
    return readGgufWordPieceTokenizer(file);
  if (*model == "t5")
    return readGgufUnigramTokenizer(file, defaults);
  if (*model != "llama" && *model != "gpt2")
    return llvm::createStringError(file.describe() + " has tokenizer model '" +
                                   *model +
                                   "' (supported: bert, gpt2, llama, t5)");
  auto bos = file.integer("tokenizer.ggml.bos_token_id", defaults.bos);
  if (!bos)
    return bos.takeError();
  auto eos = file.integer("tokenizer.ggml.eos_token_id", defaults.eos);
  if (!eos)
    return eos.takeError();
  // Ids are ints in the package; a wider value must not wrap into range.
  for (auto [key, id] :
       {std::pair<const char *, int64_t>{"tokenizer.ggml.bos_token_id", *bos},
        {"tokenizer.ggml.eos_token_id", *eos}})
    if (id < -1 || id > INT32_MAX)
      return llvm::createStringError("GGUF metadata key '" + llvm::Twine(key) +
                                     "' in '" + file.path() + "' is " +
                                     llvm::Twine(id) + ", not a token id");
  if (*model == "gpt2")
    return readGgufBpeTokenizer(file, static_cast<int>(*bos),
                                static_cast<int>(*eos));
  auto blob = readSpmBlob(file);
  if (!blob)
    return blob.takeError();
  TokenizerSpec tokenizer;
  tokenizer.kind = "spm";
  tokenizer.blob = std::move(*blob);
  tokenizer.bos = static_cast<int>(*bos);
  tokenizer.eos = static_cast<int>(*eos);
  return tokenizer;
}

} // namespace

llvm::Expected<TokenizerSpec>
tfmc::frontends::readGgufTokenizer(const GgufFile &file,
                                   SpecialTokens defaults) {
  auto tokenizer = readVocabulary(file, defaults);
  if (!tokenizer || tokenizer->kind.empty())
    return tokenizer;
  auto pad = file.integer("tokenizer.ggml.padding_token_id", -1);
  if (!pad)
    return pad.takeError();
  // llama.cpp's converters write 0xFFFFFFFF (a uint32 -1) for "no padding
  // id"; any id no token can have means none, as the id only informs.
  if (*pad < 0 || *pad > INT32_MAX)
    *pad = -1;
  tokenizer->pad = static_cast<int>(*pad);
  return tokenizer;
}
