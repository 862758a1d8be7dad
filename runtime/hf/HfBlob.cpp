//===- HfBlob.cpp - The "hf" tokenizer blob and its builders --------------===//
#include "runtime/hf/HfBlob.h"

#include "runtime/ReadFile.h"
#include "runtime/Tokenizer.h"
#include "runtime/hf/HfTokenizer.h"

#include <cstdint>

namespace tfm::rt {

namespace hf {

namespace {

/// bos_token/eos_token: a string, or an AddedToken object with "content".
bool readTokenName(const JsonReader &reader, std::string_view key,
                   std::string &out, std::string &error) {
  const JsonValue *value = reader.get(key);
  if (!value)
    return true;
  if (value->kind == JsonValue::Kind::String) {
    out = value->string;
    return true;
  }
  if (value->kind == JsonValue::Kind::Object) {
    JsonReader inner(*value, reader.pathOf(key));
    return inner.readString("content", out, error, /*required=*/true);
  }
  error = reader.typeError(key, "a string or an object with \"content\"");
  return false;
}

} // namespace

bool readConfigFacts(const JsonValue &config, const std::string &name,
                     ConfigFacts &facts, std::string &error) {
  JsonReader reader(config, "");
  facts = ConfigFacts();
  facts.hasAddBos = reader.get("add_bos_token") != nullptr;
  facts.hasAddEos = reader.get("add_eos_token") != nullptr;
  if (!reader.expectObject(error) ||
      !reader.readBool("add_bos_token", facts.addBos, error) ||
      !reader.readBool("add_eos_token", facts.addEos, error) ||
      !reader.readBool("clean_up_tokenization_spaces", facts.cleanUpSpaces,
                       error) ||
      !readTokenName(reader, "bos_token", facts.bosToken, error) ||
      !readTokenName(reader, "eos_token", facts.eosToken, error)) {
    error = name + ": " + error;
    return false;
  }
  return true;
}

std::string writeConfigFacts(const ConfigFacts &facts) {
  std::string out = "{";
  auto member = [&](const char *key) {
    if (out.size() > 1)
      out += ',';
    appendJsonString(out, key);
    out += ':';
  };
  if (facts.hasAddBos) {
    member("add_bos_token");
    out += facts.addBos ? "true" : "false";
  }
  if (facts.hasAddEos) {
    member("add_eos_token");
    out += facts.addEos ? "true" : "false";
  }
  if (!facts.bosToken.empty()) {
    member("bos_token");
    appendJsonString(out, facts.bosToken);
  }
  if (!facts.eosToken.empty()) {
    member("eos_token");
    appendJsonString(out, facts.eosToken);
  }
  member("clean_up_tokenization_spaces");
  out += facts.cleanUpSpaces ? "true" : "false";
  return out + "}";
}

bool splitHfBlob(std::string_view blob, std::string_view &facts,
                 std::string_view &tokenizerJson, std::string &error) {
  if (blob.substr(0, kHfBlobMagic.size()) != kHfBlobMagic) {
    error = "hf tokenizer blob does not start with 'TFMHF1'";
    return false;
  }
  blob.remove_prefix(kHfBlobMagic.size());
  if (blob.size() < 4) {
    error = "hf tokenizer blob is truncated in its header";
    return false;
  }
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i)
    length |= static_cast<uint32_t>(static_cast<unsigned char>(blob[i]))
              << (8 * i);
  blob.remove_prefix(4);
  if (length > blob.size()) {
    error = "hf tokenizer blob is truncated in its tokenizer_config facts";
    return false;
  }
  facts = blob.substr(0, length);
  tokenizerJson = blob.substr(length);
  return true;
}

} // namespace hf

namespace {

/// Builds the blob; `jsonName`/`configName` name the inputs in errors.
bool buildBlob(std::string_view tokenizerJson,
               std::string_view tokenizerConfigJson,
               const std::string &jsonName, const std::string &configName,
               std::string &blob, std::string &error) {
  hf::ConfigFacts facts;
  if (!tokenizerConfigJson.empty()) {
    hf::JsonValue config;
    if (!hf::parseJson(tokenizerConfigJson, config, error)) {
      error = configName + ": " + error;
      return false;
    }
    if (!hf::readConfigFacts(config, configName, facts, error))
      return false;
  }
  std::string factsJson = hf::writeConfigFacts(facts);
  std::string out(hf::kHfBlobMagic);
  uint32_t length = static_cast<uint32_t>(factsJson.size());
  for (int i = 0; i < 4; ++i)
    out += static_cast<char>((length >> (8 * i)) & 0xFF);
  out += factsJson;
  out.append(tokenizerJson.data(), tokenizerJson.size());
  // Build it once, so a bad file fails here rather than in the binary.
  std::string loadError;
  if (!hf::HfTokenizer::create(out, -1, -1, loadError)) {
    error = jsonName + ": " + loadError;
    return false;
  }
  blob = std::move(out);
  return true;
}

} // namespace

bool hfBlobFromJson(std::string_view tokenizerJson,
                    std::string_view tokenizerConfigJson, std::string &blob,
                    std::string &error) {
  return buildBlob(tokenizerJson, tokenizerConfigJson, "tokenizer.json",
                   "tokenizer_config.json", blob, error);
}

bool hfBlobFromFiles(const std::string &tokenizerJsonPath,
                     const std::string &tokenizerConfigPath, std::string &blob,
                     std::string &error) {
  std::string json, config;
  if (!readFile(tokenizerJsonPath, json, error))
    return false;
  if (!tokenizerConfigPath.empty() &&
      !readFile(tokenizerConfigPath, config, error))
    return false;
  return buildBlob(json, config, "'" + tokenizerJsonPath + "'",
                   "'" + tokenizerConfigPath + "'", blob, error);
}

} // namespace tfm::rt
