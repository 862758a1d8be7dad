//===- ModelSupport.h - Readers shared by the tokenizer models --*- C++ -*-===//
#ifndef TFMC_RUNTIME_HF_MODELSUPPORT_H
#define TFMC_RUNTIME_HF_MODELSUPPORT_H

#include "runtime/hf/Json.h"
#include "runtime/hf/Vocabulary.h"

#include <string>

namespace tfm::rt::hf {

/// Reads "vocab", an object of token -> id (BPE, WordPiece, WordLevel).
bool readVocabObject(const JsonReader &reader, Vocabulary &vocabulary,
                     std::string &error);
/// Reads "unk_token" (absent or null: -1), which must be in `vocabulary`.
bool readUnkToken(const JsonReader &reader, const Vocabulary &vocabulary,
                  int &unkId, std::string &error);
/// SentencePiece's byte-fallback piece for `byte`: "<0x41>".
std::string byteFallbackToken(unsigned char byte);

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_MODELSUPPORT_H
