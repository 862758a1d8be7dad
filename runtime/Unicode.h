//===- Unicode.h - UTF-8, character properties and normalization ----------===//
//
// The Unicode facts the runtime tokenizers need, from the tables that
// runtime/gen_unicode_tables.py generates (runtime/UnicodeTables.inc):
// general categories, white space, lowercase mapping, canonical combining
// classes and the four normalization forms.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_UNICODE_H
#define TFMC_RUNTIME_UNICODE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace tfm::rt::unicode {

//===-- UTF-8 -------------------------------------------------------------===//

/// Returned by decodeUtf8 for bytes that are not valid UTF-8: outside
/// Unicode, so it belongs to no class (category Cn).
constexpr char32_t kInvalid = 0x110000;
constexpr char32_t kReplacement = 0xFFFD;

/// Decodes the code point at `text[pos]` and advances `pos`. Invalid input
/// yields kInvalid and skips its maximal subpart (the longest prefix of a
/// valid sequence, at least one byte), as the WHATWG decoder that
/// JavaScript's TextDecoder implements does: one U+FFFD per such part.
char32_t decodeUtf8(std::string_view text, size_t &pos);
/// Appends the UTF-8 encoding of `cp` (U+FFFD for kInvalid). A lone
/// surrogate (from a JSON "\uD800" escape) keeps its 3-byte form, which no
/// valid UTF-8 text can match, as a lone UTF-16 unit matches no JavaScript
/// text.
void appendUtf8(char32_t cp, std::string &out);
/// Decodes the JSON escape whose hex digits start at `text[pos]` (just past
/// "\u"), joining a "\uD83D\uDE00" surrogate pair into one code point,
/// appends it to `out` and advances `pos`. On a truncated escape or a bad
/// hex digit sets `problem` and returns false, `pos` past what was read.
bool appendJsonUnicodeEscape(std::string_view text, size_t &pos,
                             std::string &out, std::string &problem);
/// `text` as code points, invalid parts as U+FFFD.
std::u32string toCodePoints(std::string_view text);
/// `text` as UTF-8.
std::string toUtf8(std::u32string_view text);
/// `bytes` with every invalid part replaced by U+FFFD (TextDecoder's
/// "replacement" mode).
std::string sanitizeUtf8(std::string_view bytes);
/// Length of a trailing incomplete, so far valid, UTF-8 sequence of
/// `bytes` (0 to 3): the bytes that more input could still complete.
size_t incompleteUtf8Tail(std::string_view bytes);

//===-- Properties --------------------------------------------------------===//

/// General categories, in the order of gen_unicode_tables.py's CATEGORIES.
enum class GeneralCategory : uint8_t {
  Lu,
  Ll,
  Lt,
  Lm,
  Lo,
  Mn,
  Mc,
  Me,
  Nd,
  Nl,
  No,
  Pc,
  Pd,
  Ps,
  Pe,
  Pi,
  Pf,
  Po,
  Sm,
  Sc,
  Sk,
  So,
  Zs,
  Zl,
  Zp,
  Cc,
  Cf,
  Cs,
  Co,
  Cn
};

GeneralCategory category(char32_t cp);
/// \p{L}, \p{M}, \p{N}, \p{P}, \p{S}, \p{Z}, \p{C}.
bool isLetter(char32_t cp);
bool isMark(char32_t cp);
bool isNumber(char32_t cp);
bool isPunctuation(char32_t cp);
/// Unicode's White_Space property (Oniguruma's and Rust's \s).
bool isWhiteSpace(char32_t cp);
/// ECMAScript's \s (WhiteSpace and LineTerminator): White_Space without
/// U+0085, plus U+FEFF.
bool isJsWhiteSpace(char32_t cp);
/// Oniguruma's \w: letters, marks, decimal digits, letter numbers and
/// connector punctuation.
bool isWordChar(char32_t cp);

/// Appends the full lowercase mapping of `cp` (one code point except
/// U+0130, which lowercases to "i" + U+0307), without context: like Rust's
/// char::to_lowercase, so final sigma stays σ.
void appendLowercase(char32_t cp, std::u32string &out);
/// Canonical combining class (0 for starters).
uint8_t combiningClass(char32_t cp);

//===-- Normalization -----------------------------------------------------===//

enum class NormalForm { NFC, NFD, NFKC, NFKD };
std::u32string normalize(std::u32string_view text, NormalForm form);

} // namespace tfm::rt::unicode

#endif // TFMC_RUNTIME_UNICODE_H
