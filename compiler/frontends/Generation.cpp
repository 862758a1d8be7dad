//===- Generation.cpp - Stop ids, sampling and pooling from model files ---===//
//
// generation_config.json and sentence-transformers' modules.json are read
// as transformers and sentence-transformers read them; an unexpected value
// is an error that names the file and the field, since silently ignoring a
// field is how a model ends up generating differently from its card.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Generation.h"

#include "compiler/frontends/FrontendSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

llvm::Error fieldError(const std::string &path, llvm::StringRef field,
                       const llvm::Twine &what) {
  return llvm::createStringError("'" + path + "': '" + field + "' " + what);
}

/// The JSON object in the file at `path`.
llvm::Expected<llvm::json::Value> readJsonObject(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + buffer.getError().message());
  auto json = parseJson((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("'" + path + "' is not valid JSON: " +
                                   llvm::toString(json.takeError()));
  if (!json->getAsObject())
    return llvm::createStringError("'" + path + "' does not hold an object");
  return json;
}

/// Appends the ids of `key` (an integer or a list of them) to `ids`, each
/// once and none equal to `eos`.
llvm::Error appendStopIds(const llvm::json::Object &object, llvm::StringRef key,
                          const std::string &path, int eos, int64_t vocabSize,
                          std::vector<int> &ids) {
  const llvm::json::Value *value = object.get(key);
  if (!value || value->getAsNull())
    return llvm::Error::success();
  std::vector<const llvm::json::Value *> elements;
  if (const llvm::json::Array *array = value->getAsArray()) {
    for (const llvm::json::Value &element : *array)
      elements.push_back(&element);
  } else {
    elements.push_back(value);
  }
  for (const llvm::json::Value *element : elements) {
    std::optional<int64_t> id = element->getAsInteger();
    if (!id)
      return fieldError(path, key, "holds a value that is not a token id");
    if (*id < 0 || *id >= vocabSize)
      return fieldError(path, key,
                        "holds " + llvm::Twine(*id) +
                            ", outside the vocabulary of " +
                            llvm::Twine(vocabSize));
    int token = static_cast<int>(*id);
    if (token != eos && !llvm::is_contained(ids, token))
      ids.push_back(token);
  }
  return llvm::Error::success();
}

std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

/// A number field of generation_config.json, checked against (low, high]
/// (or [low, high] with `closedLow`).
llvm::Expected<std::optional<double>>
readNumber(const llvm::json::Object &object, llvm::StringRef key,
           const std::string &path, double low, double high, bool closedLow) {
  const llvm::json::Value *value = object.get(key);
  if (!value || value->getAsNull())
    return std::nullopt;
  std::optional<double> number = value->getAsNumber();
  if (!number)
    return fieldError(path, key, "is not a number");
  bool aboveLow = closedLow ? *number >= low : *number > low;
  if (!aboveLow || *number > high)
    return fieldError(path, key,
                      "is " + formatNumber(*number) + ", outside " +
                          (closedLow ? "[" : "(") + formatNumber(low) + ", " +
                          formatNumber(high) + "]");
  return number;
}

llvm::Expected<SamplingDefaults> readSampling(const llvm::json::Object &object,
                                              const std::string &path) {
  SamplingDefaults defaults;
  if (const llvm::json::Value *sample = object.get("do_sample")) {
    std::optional<bool> flag = sample->getAsBoolean();
    if (!flag && !sample->getAsNull())
      return fieldError(path, "do_sample", "is not true or false");
    defaults.sample = flag.value_or(false);
  }
  struct Field {
    const char *key;
    std::optional<double> &target;
    double low, high;
    bool closedLow;
  };
  std::optional<double> topK;
  Field fields[] = {
      {"temperature", defaults.temperature, 0, 1e6, true},
      {"top_p", defaults.topP, 0, 1, false},
      {"min_p", defaults.minP, 0, 1, true},
      {"repetition_penalty", defaults.repetitionPenalty, 0, 1e6, false},
      {"top_k", topK, 0, 1e9, true},
  };
  for (Field &field : fields) {
    auto value = readNumber(object, field.key, path, field.low, field.high,
                            field.closedLow);
    if (!value)
      return value.takeError();
    field.target = *value;
  }
  if (topK) {
    if (*topK != static_cast<double>(static_cast<int64_t>(*topK)))
      return fieldError(path, "top_k", "is not an integer");
    defaults.topK = static_cast<int64_t>(*topK);
  }
  return defaults;
}

} // namespace

llvm::Expected<GenerationSpec>
frontends::readHfGeneration(const std::string &directory,
                            const llvm::json::Object &config, int eos,
                            int64_t vocabSize) {
  GenerationSpec generation;
  std::string configPath = joinPath(directory, "config.json");
  if (auto error = appendStopIds(config, "eos_token_id", configPath, eos,
                                 vocabSize, generation.extraStopIds))
    return std::move(error);
  std::string path = joinPath(directory, "generation_config.json");
  if (!llvm::sys::fs::exists(path))
    return generation;
  auto json = readJsonObject(path);
  if (!json)
    return json.takeError();
  const llvm::json::Object &object = *json->getAsObject();
  if (auto error = appendStopIds(object, "eos_token_id", path, eos, vocabSize,
                                 generation.extraStopIds))
    return std::move(error);
  auto sampling = readSampling(object, path);
  if (!sampling)
    return sampling.takeError();
  generation.sampling = *sampling;
  return generation;
}

llvm::Expected<GenerationSpec>
frontends::readGgufGeneration(const GgufFile &file, int eos,
                              int64_t vocabSize) {
  GenerationSpec generation;
  for (const char *key :
       {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"}) {
    if (!file.isSet(key))
      continue;
    auto id = file.integer(key, std::nullopt);
    if (!id)
      return id.takeError();
    if (*id < 0 || *id >= vocabSize)
      return llvm::createStringError(
          "GGUF metadata key '" + llvm::Twine(key) + "' in '" + file.path() +
          "' is " + llvm::Twine(*id) + ", outside the vocabulary of " +
          llvm::Twine(vocabSize));
    int token = static_cast<int>(*id);
    if (token != eos && !llvm::is_contained(generation.extraStopIds, token))
      generation.extraStopIds.push_back(token);
  }
  return generation;
}

llvm::Expected<std::optional<EmbeddingSpec>>
frontends::readSentenceTransformers(const std::string &directory) {
  std::string modulesPath = joinPath(directory, "modules.json");
  if (!llvm::sys::fs::exists(modulesPath))
    return std::nullopt;
  auto buffer = llvm::MemoryBuffer::getFile(modulesPath, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError("cannot read '" + modulesPath +
                                   "': " + buffer.getError().message());
  auto modules = parseJson((*buffer)->getBuffer());
  if (!modules)
    return llvm::createStringError("'" + modulesPath + "' is not valid JSON: " +
                                   llvm::toString(modules.takeError()));
  const llvm::json::Array *list = modules->getAsArray();
  if (!list)
    return llvm::createStringError("'" + modulesPath +
                                   "' does not hold a list of modules");
  EmbeddingSpec embedding;
  bool pooled = false;
  for (const llvm::json::Value &module : *list) {
    const llvm::json::Object *object = module.getAsObject();
    std::optional<llvm::StringRef> type =
        object ? object->getString("type") : std::nullopt;
    if (!type)
      return llvm::createStringError("'" + modulesPath +
                                     "' holds a module without a 'type'");
    llvm::StringRef name = type->rsplit('.').second;
    if (name.empty())
      name = *type;
    if (name == "Transformer")
      continue;
    if (name == "Normalize") {
      embedding.normalize = true;
      continue;
    }
    if (name != "Pooling")
      return llvm::createStringError(
          "'" + modulesPath + "': the sentence-transformers module '" + *type +
          "' is not supported (tfmc runs Transformer, Pooling and Normalize)");
    std::string poolingPath =
        joinPath(joinPath(directory, object->getString("path").value_or("")),
                 "config.json");
    auto config = readJsonObject(poolingPath);
    if (!config)
      return config.takeError();
    // sentence-transformers concatenates the vectors of every mode set.
    const std::pair<const char *, const char *> modes[] = {
        {"pooling_mode_cls_token", "cls"},
        {"pooling_mode_mean_tokens", "mean"},
        {"pooling_mode_max_tokens", "max"},
        {"pooling_mode_mean_sqrt_len_tokens", "mean_sqrt_len"},
        {"pooling_mode_weightedmean_tokens", nullptr},
        {"pooling_mode_lasttoken", "last"}};
    std::vector<const char *> set;
    for (auto [key, pooling] : modes) {
      std::optional<bool> on = config->getAsObject()->getBoolean(key);
      if (!on || !*on)
        continue;
      if (!pooling)
        return fieldError(poolingPath, key, "is not supported");
      set.push_back(pooling);
    }
    if (set.size() != 1)
      return llvm::createStringError(
          "'" + poolingPath + "' sets " + llvm::Twine(set.size()) +
          " pooling modes; tfmc supports exactly one");
    embedding.pooling = set.front();
    embedding.source = "modules.json";
    pooled = true;
  }
  if (!pooled)
    return llvm::createStringError("'" + modulesPath +
                                   "' has no Pooling module");
  return embedding;
}
