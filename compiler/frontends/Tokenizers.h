//===- Tokenizers.h - Tokenizer files into the runtime's blobs --*- C++ -*-===//
//
// Each reader converts one tokenizer format into a TokenizerSpec (a runtime
// tokenizer kind and its blob). Special ids a format does not record come
// from the caller, which knows the model family's conventions.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_TOKENIZERS_H
#define TFMC_COMPILER_FRONTENDS_TOKENIZERS_H

#include "compiler/spec/TokenizerSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace tfmc::frontends {

class GgufFile;

/// A llama2.c tokenizer.bin holding `vocabSize` pieces, as "spm".
llvm::Expected<TokenizerSpec> readLlama2cTokenizer(const std::string &path,
                                                   int64_t vocabSize,
                                                   SpecialTokens ids);

/// The tokenizer file a user names with --tokenizer, by its name:
/// a tokenizer.json (any *.json but vocab.json) as "hf", GPT-2's vocab.json
/// with the merges.txt beside it as "gpt2-bpe", a GGUF file as the
/// vocabulary it embeds (its special ids, else `ids`), any other file as a
/// llama2.c tokenizer ("spm"); with the special ids `ids`.
llvm::Expected<TokenizerSpec> readTokenizerFile(const std::string &path,
                                                int64_t vocabSize,
                                                SpecialTokens ids);

/// The tokenizer of the Hugging Face model in `directory`: `override` when
/// non-empty (tokenizer.json, vocab.json with merges.txt beside it, or a
/// llama2.c tokenizer.bin), else tokenizer.json, else vocab.json +
/// merges.txt. Special ids come from config.json's bos_token_id and
/// eos_token_id, else `defaults`. Empty when the directory has none.
llvm::Expected<TokenizerSpec> readHfTokenizer(const std::string &directory,
                                              const std::string &override,
                                              const llvm::json::Object &config,
                                              int64_t vocabSize,
                                              SpecialTokens defaults);

/// The vocabulary embedded in GGUF metadata, with the file's special ids or
/// `defaults`: a SentencePiece one (tokenizer model `llama`) as "spm", a
/// byte-level BPE (`gpt2`), a BERT WordPiece (`bert`) or a T5
/// Unigram (`t5`) as "hf". Empty when
/// the file has none.
llvm::Expected<TokenizerSpec> readGgufTokenizer(const GgufFile &file,
                                                SpecialTokens defaults);

/// The byte-level BPE vocabulary (tokenizer model `gpt2`) of a GGUF file
/// as the tokenizer.json its `tokenizer.ggml.pre` stands for, in the "hf"
/// kind, with special ids `bos` and `eos`.
llvm::Expected<TokenizerSpec> readGgufBpeTokenizer(const GgufFile &file,
                                                   int bos, int eos);

/// The BERT WordPiece vocabulary (tokenizer model `bert`, llama.cpp's
/// phantom-space pieces) of a GGUF file as BERT's uncased tokenizer.json,
/// in the "hf" kind: [CLS] $A [SEP] with the file's [CLS], [SEP], [UNK] and
/// [MASK] ids.
llvm::Expected<TokenizerSpec> readGgufWordPieceTokenizer(const GgufFile &file);

/// The SentencePiece Unigram vocabulary (tokenizer model `t5`) of a GGUF
/// file as the tokenizer.json that does what llama.cpp does with it
/// (charsmap, space switches, scores, EOS added by default), in the "hf"
/// kind; special ids the file leaves out come from `defaults`.
llvm::Expected<TokenizerSpec> readGgufUnigramTokenizer(const GgufFile &file,
                                                       SpecialTokens defaults);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_TOKENIZERS_H
