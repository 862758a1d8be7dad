//===- Models.cpp - tokenizer.json "model" dispatch and shared readers ----===//
#include "runtime/hf/Components.h"

#include "runtime/hf/ModelSupport.h"

namespace tfm::rt::hf {

bool Model::checkByteLevelAlphabet(std::string &) const { return true; }

bool readType(const JsonReader &reader, std::string &type, std::string &error) {
  if (!reader.expectObject(error) ||
      !reader.readString("type", type, error, /*required=*/true))
    return false;
  return true;
}

std::string unsupportedType(const char *what, const std::string &type,
                            const std::string &path) {
  return "unsupported " + std::string(what) + " type '" + type +
         "' in tokenizer.json (at '" + path + "')";
}

bool readVocabObject(const JsonReader &reader, Vocabulary &vocabulary,
                     std::string &error) {
  const JsonValue *vocab = reader.get("vocab");
  if (!vocab || vocab->kind != JsonValue::Kind::Object) {
    error = reader.typeError("vocab", "an object of token ids");
    return false;
  }
  std::vector<std::pair<std::string, int64_t>> entries;
  entries.reserve(vocab->object.size());
  for (const auto &[token, id] : vocab->object) {
    if (id.kind != JsonValue::Kind::Number || !id.isInteger) {
      error = "'" + reader.pathOf("vocab") + "': the id of token '" + token +
              "' must be an integer, not " + id.kindName();
      return false;
    }
    entries.emplace_back(token, id.integer);
  }
  if (entries.empty()) {
    error = "'" + reader.pathOf("vocab") + "' holds no tokens";
    return false;
  }
  return vocabulary.assign(std::move(entries), reader.pathOf("vocab"), error);
}

bool readUnkToken(const JsonReader &reader, const Vocabulary &vocabulary,
                  int &unkId, std::string &error) {
  std::string unk;
  unkId = -1;
  if (!reader.readString("unk_token", unk, error))
    return false;
  if (!reader.get("unk_token"))
    return true;
  unkId = vocabulary.find(unk);
  if (unkId < 0) {
    error = "'" + reader.pathOf("unk_token") + "' ('" + unk +
            "') is not in the vocabulary";
    return false;
  }
  return true;
}

std::string byteFallbackToken(unsigned char byte) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string token = "<0x";
  token += kHex[byte >> 4];
  token += kHex[byte & 15];
  token += '>';
  return token;
}

std::unique_ptr<Model> createModel(const JsonValue &config,
                                   const std::string &path,
                                   std::string &error) {
  JsonReader reader(config, path);
  std::string type;
  if (!readType(reader, type, error))
    return nullptr;
  if (type == "BPE")
    return createBpeModel(reader, error);
  if (type == "WordPiece")
    return createWordPieceModel(reader, error);
  if (type == "WordLevel")
    return createWordLevelModel(reader, error);
  if (type == "Unigram")
    return createUnigramModel(reader, error);
  error = unsupportedType("model", type, path);
  return nullptr;
}

} // namespace tfm::rt::hf
