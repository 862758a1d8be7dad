//===- HfBlob.h - The "hf" tokenizer blob -----------------------*- C++ -*-===//
//
// An "hf" tokenizer blob is
//   "TFMHF1\n"                      magic (7 bytes)
//   u32 little endian               length N of the facts
//   N bytes                         the facts: a JSON object with those of
//                                   add_bos_token, add_eos_token (booleans),
//                                   bos_token, eos_token (strings) and
//                                   clean_up_tokenization_spaces (boolean)
//                                   that tokenizer_config.json gives
//   the rest                        tokenizer.json, verbatim
// so the produced binary reads the same text the user's tools read.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_HF_HFBLOB_H
#define TFMC_RUNTIME_HF_HFBLOB_H

#include "runtime/hf/Json.h"

#include <string>
#include <string_view>

namespace tfm::rt::hf {

constexpr std::string_view kHfBlobMagic = "TFMHF1\n";

/// What tokenizer_config.json says about special tokens and decoding.
struct ConfigFacts {
  bool hasAddBos = false, addBos = false;
  bool hasAddEos = false, addEos = false;
  std::string bosToken, eosToken; // empty: not given
  bool cleanUpSpaces = false;
};

/// Reads the facts from a tokenizer_config.json (or the blob's facts
/// object); `name` prefixes errors.
bool readConfigFacts(const JsonValue &config, const std::string &name,
                     ConfigFacts &facts, std::string &error);
/// The blob's facts object for `facts`.
std::string writeConfigFacts(const ConfigFacts &facts);

/// Splits a blob into its facts and tokenizer.json.
bool splitHfBlob(std::string_view blob, std::string_view &facts,
                 std::string_view &tokenizerJson, std::string &error);

} // namespace tfm::rt::hf

#endif // TFMC_RUNTIME_HF_HFBLOB_H
