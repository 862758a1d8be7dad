//===- HfTestSupport.h - Building "hf" tokenizers in unit tests -*- C++ -*-===//
#ifndef TFMC_TEST_UNIT_HFTESTSUPPORT_H
#define TFMC_TEST_UNIT_HFTESTSUPPORT_H

#include "runtime/Tokenizer.h"
#include "runtime/Unicode.h"
#include "runtime/hf/Json.h"

#include <memory>
#include <string>
#include <vector>

namespace tfm::rt::test {

/// A tokenizer.json from raw JSON fragments of its parts.
inline std::string tokenizerJson(const std::string &model,
                                 const std::string &normalizer = "null",
                                 const std::string &preTokenizer = "null",
                                 const std::string &postProcessor = "null",
                                 const std::string &decoder = "null",
                                 const std::string &addedTokens = "[]") {
  return "{\"version\": \"1.0\", \"added_tokens\": " + addedTokens +
         ", \"normalizer\": " + normalizer +
         ", \"pre_tokenizer\": " + preTokenizer +
         ", \"post_processor\": " + postProcessor +
         ", \"decoder\": " + decoder + ", \"model\": " + model + "}";
}

/// Builds an "hf" tokenizer from tokenizer.json (and tokenizer_config.json)
/// text through the public blob builder; null and `error` on failure.
inline std::unique_ptr<Tokenizer>
loadHf(const std::string &json, const std::string &config, std::string &error) {
  std::string blob;
  if (!hfBlobFromJson(json, config, blob, error))
    return nullptr;
  return loadTokenizer("hf", blob, -1, -1, error);
}

/// The error building `json` gives ("" when it builds).
inline std::string loadError(const std::string &json,
                             const std::string &config = "") {
  std::string error;
  return loadHf(json, config, error) ? std::string() : error;
}

/// Parses a JSON fragment that the test knows to be valid.
inline hf::JsonValue json(const std::string &text) {
  hf::JsonValue value;
  std::string error;
  hf::parseJson(text, value, error);
  return value;
}

/// Everything a Detokenizer prints for `ids`.
inline std::string streamDecode(const Tokenizer &tok,
                                const std::vector<int> &ids) {
  std::unique_ptr<Detokenizer> detokenizer = tok.detokenizer();
  std::string text;
  for (int id : ids)
    text += detokenizer->step(id);
  return text + detokenizer->finish();
}

inline std::u32string u32(const std::string &utf8) {
  return unicode::toCodePoints(utf8);
}

} // namespace tfm::rt::test

#endif // TFMC_TEST_UNIT_HFTESTSUPPORT_H
