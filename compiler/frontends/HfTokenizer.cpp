//===- HfTokenizer.cpp - Tokenizers of Hugging Face model directories -----===//
//
// tokenizer.json BPE models come in two flavours: byte-level (GPT-2 style,
// ByteLevel pre-tokenizer/decoder) becomes a "gpt2-bpe" blob; SentencePiece
// style (Metaspace "▁", byte_fallback; LLaMA) becomes an "spm" blob whose
// scores rank pieces by the merge that produces them, which is the order the
// greedy SentencePiece merge loop needs.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Tokenizers.h"

#include "compiler/frontends/FrontendSupport.h"
#include "runtime/Tokenizer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

/// Score of pieces no merge produces (bytes, characters, specials): below
/// every merged piece so that merging never prefers them.
constexpr float kUnmergedScore = -1e9f;

struct BpeModel {
  std::vector<std::string> tokensById;
  std::vector<bool> hasToken; ///< which ids tokensById defines
  std::vector<std::pair<std::string, std::string>> merges; ///< rank order
  bool byteLevel = false;
};

llvm::Error tokenizerError(const std::string &path, const llvm::Twine &what) {
  return llvm::createStringError("tokenizer '" + path + "' " + what);
}

/// True when a pre_tokenizer/decoder object is, or contains, ByteLevel.
bool mentionsByteLevel(const llvm::json::Value *value) {
  const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object)
    return false;
  if (object->getString("type") == std::optional<llvm::StringRef>("ByteLevel"))
    return true;
  for (const char *key : {"pretokenizers", "decoders"})
    if (const llvm::json::Array *items = object->getArray(key))
      for (const llvm::json::Value &item : *items)
        if (mentionsByteLevel(&item))
          return true;
  return false;
}

/// Sets tokensById[id] = piece, growing the table; rejects conflicting ids.
llvm::Error placeToken(const std::string &path, BpeModel &model, int64_t id,
                       llvm::StringRef piece) {
  if (id < 0 || id > (1 << 24))
    return tokenizerError(path, "has invalid token id " + llvm::Twine(id) +
                                    " for '" + piece + "'");
  if (static_cast<size_t>(id) >= model.tokensById.size()) {
    model.tokensById.resize(id + 1);
    model.hasToken.resize(id + 1);
  }
  model.tokensById[id] = piece.str();
  model.hasToken[id] = true;
  return llvm::Error::success();
}

llvm::Error readVocab(const std::string &path, const llvm::json::Object &bpe,
                      const llvm::json::Object &root, BpeModel &model) {
  const llvm::json::Object *vocab = bpe.getObject("vocab");
  if (!vocab)
    return tokenizerError(path, "lacks the object 'model.vocab'");
  for (const auto &[piece, idValue] : *vocab) {
    auto id = idValue.getAsInteger();
    if (!id)
      return tokenizerError(path, "maps '" + llvm::StringRef(piece) +
                                      "' to a non-integer id");
    if (auto err = placeToken(path, model, *id, piece))
      return err;
  }
  if (const llvm::json::Array *added = root.getArray("added_tokens")) {
    for (const llvm::json::Value &item : *added) {
      const llvm::json::Object *token = item.getAsObject();
      auto id = token ? token->getInteger("id") : std::nullopt;
      auto content = token ? token->getString("content") : std::nullopt;
      if (!id || !content)
        return tokenizerError(path, "has an added_tokens entry without an "
                                    "integer 'id' and a string 'content'");
      if (auto err = placeToken(path, model, *id, *content))
        return err;
    }
  }
  // A vocabulary with holes would shift every later id.
  for (size_t id = 0; id < model.hasToken.size(); ++id)
    if (!model.hasToken[id])
      return tokenizerError(path, "has no token with id " + llvm::Twine(id));
  return llvm::Error::success();
}

llvm::Error readMerges(const std::string &path, const llvm::json::Object &bpe,
                       BpeModel &model) {
  const llvm::json::Array *merges = bpe.getArray("merges");
  if (!merges)
    return llvm::Error::success();
  for (const llvm::json::Value &merge : *merges) {
    if (auto text = merge.getAsString()) {
      auto [left, right] = text->split(' ');
      if (left.empty() || right.empty())
        return tokenizerError(path, "has malformed merge '" + *text + "'");
      model.merges.emplace_back(left.str(), right.str());
      continue;
    }
    const llvm::json::Array *pair = merge.getAsArray();
    auto left = pair && pair->size() == 2 ? (*pair)[0].getAsString()
                                          : std::nullopt;
    auto right = pair && pair->size() == 2 ? (*pair)[1].getAsString()
                                           : std::nullopt;
    if (!left || !right)
      return tokenizerError(path, "has a merge that is neither \"a b\" nor "
                                  "[\"a\", \"b\"]");
    model.merges.emplace_back(left->str(), right->str());
  }
  return llvm::Error::success();
}

llvm::Expected<BpeModel> readTokenizerJson(const std::string &path) {
  auto buffer = mapFile(path, "tokenizer");
  if (!buffer)
    return buffer.takeError();
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return tokenizerError(path, "is not valid JSON: " +
                                    llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *bpe = root ? root->getObject("model") : nullptr;
  if (!bpe)
    return tokenizerError(path, "lacks the object 'model'");
  auto type = bpe->getString("type");
  if (type != std::optional<llvm::StringRef>("BPE"))
    return tokenizerError(path, "has model type '" +
                                    (type ? *type : llvm::StringRef("")) +
                                    "' (supported: BPE)");
  BpeModel model;
  if (auto err = readVocab(path, *bpe, *root, model))
    return err;
  if (auto err = readMerges(path, *bpe, model))
    return err;
  model.byteLevel = mentionsByteLevel(root->get("pre_tokenizer")) ||
                    mentionsByteLevel(root->get("decoder"));
  return model;
}

/// SentencePiece-style pieces and scores from a BPE vocabulary and merges.
std::string spmBlobFromBpe(const BpeModel &model) {
  llvm::StringMap<size_t> ids;
  for (size_t id = 0; id < model.tokensById.size(); ++id)
    ids.try_emplace(model.tokensById[id], id);
  std::vector<float> scores(model.tokensById.size(), kUnmergedScore);
  for (size_t rank = 0; rank < model.merges.size(); ++rank) {
    auto it = ids.find(model.merges[rank].first + model.merges[rank].second);
    // The earliest merge producing a piece is the one BPE applies.
    if (it != ids.end() && scores[it->second] == kUnmergedScore)
      scores[it->second] = 0.0f - static_cast<float>(rank);
  }
  std::vector<std::string> pieces;
  pieces.reserve(model.tokensById.size());
  for (const std::string &token : model.tokensById)
    pieces.push_back(metaspaceToSpace(token));
  return tfm::rt::spmBlobFromPieces(pieces, scores);
}

llvm::Expected<TokenizerSpec> fromTokenizerJson(const std::string &path,
                                                int64_t vocabSize) {
  auto model = readTokenizerJson(path);
  if (!model)
    return model.takeError();
  if (static_cast<int64_t>(model->tokensById.size()) > vocabSize)
    return tokenizerError(path, "has " +
                                    llvm::Twine(model->tokensById.size()) +
                                    " tokens but the model's vocabulary has " +
                                    llvm::Twine(vocabSize));
  TokenizerSpec spec;
  if (model->byteLevel) {
    std::vector<std::string> merges;
    merges.reserve(model->merges.size());
    for (const auto &[left, right] : model->merges)
      merges.push_back(left + " " + right);
    spec.kind = "gpt2-bpe";
    spec.blob = tfm::rt::gpt2BlobFromVocab(model->tokensById, merges);
    return spec;
  }
  spec.kind = "spm";
  spec.blob = spmBlobFromBpe(*model);
  return spec;
}

llvm::Expected<TokenizerSpec> fromVocabAndMerges(const std::string &vocabPath,
                                                 const std::string &mergesPath) {
  if (!llvm::sys::fs::exists(mergesPath))
    return llvm::createStringError("tokenizer '" + vocabPath + "' needs '" +
                                   mergesPath + "', which does not exist");
  TokenizerSpec spec;
  std::string error;
  if (!tfm::rt::gpt2BlobFromFiles(vocabPath, mergesPath, spec.blob, error)) {
    if (error.find(vocabPath) == std::string::npos &&
        error.find(mergesPath) == std::string::npos)
      error = "tokenizer '" + vocabPath + "': " + error;
    return llvm::createStringError(error);
  }
  spec.kind = "gpt2-bpe";
  return spec;
}

/// Reads a special id that may be an integer or a list (first element).
int specialId(const llvm::json::Object &config, llvm::StringRef key,
              int fallback) {
  const llvm::json::Value *value = config.get(key);
  if (!value)
    return fallback;
  if (auto id = value->getAsInteger())
    return static_cast<int>(*id);
  if (const llvm::json::Array *ids = value->getAsArray())
    if (!ids->empty())
      if (auto id = (*ids)[0].getAsInteger())
        return static_cast<int>(*id);
  return fallback;
}

llvm::Expected<TokenizerSpec> fromFile(const std::string &path,
                                       int64_t vocabSize) {
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError("tokenizer '" + path + "' does not exist");
  llvm::StringRef name = llvm::sys::path::filename(path);
  if (name == "vocab.json")
    return fromVocabAndMerges(
        path, joinPath(std::string(llvm::sys::path::parent_path(path)),
                       "merges.txt"));
  if (name.ends_with(".json"))
    return fromTokenizerJson(path, vocabSize);
  if (name.ends_with(".bin"))
    return readLlama2cTokenizer(path, vocabSize, SpecialTokens());
  return llvm::createStringError("tokenizer '" + path +
                                 "' is not a tokenizer.json, vocab.json or "
                                 "llama2.c tokenizer .bin file");
}

} // namespace

llvm::Expected<TokenizerSpec>
tfmc::frontends::readHfTokenizer(const std::string &directory,
                                 const std::string &override,
                                 const llvm::json::Object &config,
                                 int64_t vocabSize, SpecialTokens defaults) {
  std::string tokenizerJson = joinPath(directory, "tokenizer.json");
  std::string vocabJson = joinPath(directory, "vocab.json");
  auto spec = [&]() -> llvm::Expected<TokenizerSpec> {
    if (!override.empty())
      return fromFile(override, vocabSize);
    if (llvm::sys::fs::exists(tokenizerJson))
      return fromTokenizerJson(tokenizerJson, vocabSize);
    if (llvm::sys::fs::exists(vocabJson))
      return fromVocabAndMerges(vocabJson, joinPath(directory, "merges.txt"));
    return TokenizerSpec();
  }();
  if (!spec || spec->kind.empty())
    return spec;
  spec->bos = specialId(config, "bos_token_id", defaults.bos);
  spec->eos = specialId(config, "eos_token_id", defaults.eos);
  return spec;
}
