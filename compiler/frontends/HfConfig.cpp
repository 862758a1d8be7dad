//===- HfConfig.cpp - A Hugging Face config.json as config keys -----------===//
#include "compiler/frontends/HfConfig.h"

#include "compiler/frontends/FrontendSupport.h"

#include "llvm/Support/FileSystem.h"

#include <cmath>

using namespace tfmc;
using namespace tfmc::frontends;

llvm::Expected<std::unique_ptr<HfConfig>>
HfConfig::open(const std::string &directory) {
  std::string path = joinPath(directory, "config.json");
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError("Hugging Face model directory '" +
                                   directory + "' has no config.json");
  auto buffer = mapFile(path, "config");
  if (!buffer)
    return buffer.takeError();
  auto json = parseJson((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("malformed JSON in '" + path +
                                   "': " + llvm::toString(json.takeError()));
  if (!json->getAsObject())
    return llvm::createStringError("'" + path + "' must hold a JSON object");
  return std::unique_ptr<HfConfig>(new HfConfig(path, std::move(*json)));
}

std::string HfConfig::describe() const { return "'" + path_ + "'"; }

const llvm::json::Value *HfConfig::value(llvm::StringRef key) const {
  const llvm::json::Value *found = stored(key);
  return found && found->kind() != llvm::json::Value::Null ? found : nullptr;
}

bool HfConfig::isNull(llvm::StringRef key) const {
  const llvm::json::Value *found = stored(key);
  return found && found->kind() == llvm::json::Value::Null;
}

const llvm::json::Value *HfConfig::stored(llvm::StringRef key) const {
  // "a.b" is field b of the object in field a (transformers 5.x nests
  // e.g. rope_parameters.rope_theta); "a.3" is element 3 of the array in
  // field a (Qwen2's layer_types).
  const llvm::json::Object *object = &json();
  const llvm::json::Array *array = nullptr;
  llvm::StringRef rest = key;
  while (true) {
    auto [head, tail] = rest.split('.');
    const llvm::json::Value *found = nullptr;
    size_t index = 0;
    if (object)
      found = object->get(head);
    else if (array && !head.getAsInteger(10, index) && index < array->size())
      found = &(*array)[index];
    if (!found)
      return nullptr;
    if (tail.empty())
      return found;
    object = found->getAsObject();
    array = found->getAsArray();
    rest = tail;
  }
}

bool HfConfig::isSet(llvm::StringRef key) const {
  const llvm::json::Value *found = value(key);
  return found && found->getAsBoolean() != std::optional<bool>(false);
}

llvm::Expected<int64_t> HfConfig::integerFrom(llvm::StringRef key,
                                              std::optional<int64_t> fallback,
                                              int64_t minimum,
                                              llvm::StringRef kind) const {
  const llvm::json::Value *found = value(key);
  if (!found) {
    if (!fallback)
      return llvm::createStringError(describe() + " lacks integer field '" +
                                     key + "'");
    return *fallback;
  }
  auto integer = found->getAsInteger();
  if (!integer || *integer < minimum)
    return llvm::createStringError("field '" + key + "' in " + describe() +
                                   " must be a " + kind + " integer");
  return *integer;
}

llvm::Expected<int64_t>
HfConfig::positive(llvm::StringRef key, std::optional<int64_t> fallback) const {
  return integerFrom(key, fallback, 1, "positive");
}

llvm::Expected<int64_t>
HfConfig::nonNegative(llvm::StringRef key,
                      std::optional<int64_t> fallback) const {
  return integerFrom(key, fallback, 0, "non-negative");
}

llvm::Expected<double>
HfConfig::positiveReal(llvm::StringRef key,
                       std::optional<double> fallback) const {
  const llvm::json::Value *found = value(key);
  if (!found) {
    if (!fallback)
      return llvm::createStringError(describe() + " lacks number field '" +
                                     key + "'");
    return *fallback;
  }
  auto real = found->getAsNumber();
  // JSON has no NaN or Infinity, but 1e999 parses to infinity.
  if (real && !std::isfinite(*real))
    return llvm::createStringError("field '" + key + "' in " + describe() +
                                   " must be a finite number");
  if (!real || !(*real > 0))
    return llvm::createStringError("field '" + key + "' in " + describe() +
                                   " must be a positive number");
  return *real;
}

llvm::Expected<std::string>
HfConfig::string(llvm::StringRef key,
                 std::optional<std::string> fallback) const {
  const llvm::json::Value *found = value(key);
  if (!found) {
    if (!fallback)
      return llvm::createStringError(describe() + " lacks string field '" +
                                     key + "'");
    return *fallback;
  }
  auto text = found->getAsString();
  if (!text)
    return llvm::createStringError("field '" + key + "' in " + describe() +
                                   " must be a string");
  return text->str();
}

llvm::Expected<bool> HfConfig::flag(llvm::StringRef key, bool fallback) const {
  const llvm::json::Value *found = value(key);
  if (!found)
    return fallback;
  auto boolean = found->getAsBoolean();
  if (!boolean)
    return llvm::createStringError("field '" + key + "' in " + describe() +
                                   " must be true or false");
  return *boolean;
}

llvm::Expected<std::vector<double>> HfConfig::reals(llvm::StringRef key) const {
  const llvm::json::Value *found = value(key);
  if (!found)
    return llvm::createStringError(describe() + " lacks list field '" + key +
                                   "'");
  const llvm::json::Array *array = found->getAsArray();
  auto notNumbers = [&] {
    return llvm::createStringError("field '" + key + "' in " + describe() +
                                   " must be a list of finite numbers");
  };
  if (!array)
    return notNumbers();
  std::vector<double> out;
  for (const llvm::json::Value &item : *array) {
    std::optional<double> number = item.getAsNumber();
    if (!number || !std::isfinite(*number))
      return notNumbers();
    out.push_back(*number);
  }
  return out;
}

std::optional<uint64_t> HfConfig::arraySize(llvm::StringRef key) const {
  const llvm::json::Value *found = value(key);
  const llvm::json::Array *array = found ? found->getAsArray() : nullptr;
  if (!array)
    return std::nullopt;
  return array->size();
}
