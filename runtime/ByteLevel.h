//===- ByteLevel.h - GPT-2's byte <-> visible-character map -----*- C++ -*-===//
//
// Byte-level BPE vocabularies (GPT-2, Qwen2, BLOOM, ...) spell every byte as
// a visible character: printable Latin-1 bytes as themselves, the other 68
// bytes as U+0100 upwards in byte order (GPT-2's bytes_to_unicode()).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_BYTELEVEL_H
#define TFMC_RUNTIME_BYTELEVEL_H

#include <string>
#include <string_view>

namespace tfm::rt {

/// The character that spells byte `byte`.
char32_t byteLevelChar(unsigned char byte);
/// The byte that `cp` spells, or -1 when `cp` is not in the map's image.
int byteLevelByte(char32_t cp);
/// `bytes` spelled in the byte-level alphabet.
std::u32string toByteLevel(std::string_view bytes);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_BYTELEVEL_H
