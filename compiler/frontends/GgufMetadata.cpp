//===- GgufMetadata.cpp - Typed access to GGUF metadata -------------------===//
//
// GGUF metadata are typed: a key must hold the kind of value its reader
// asks for, and errors name the key, the file and both types.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Gguf.h"

#include <cmath>

using namespace tfmc;
using namespace tfmc::frontends;

std::string GgufFile::describe() const { return "GGUF file '" + path_ + "'"; }

llvm::Expected<const GgufValue *> GgufFile::lookup(llvm::StringRef key,
                                                   bool optional) const {
  const GgufValue *value = find(key);
  if (!value && !optional)
    return llvm::createStringError(describe() + " lacks metadata key '" + key +
                                   "'");
  return value;
}

llvm::Error GgufFile::wrongType(llvm::StringRef key, const GgufValue &value,
                                llvm::StringRef expected) const {
  return llvm::createStringError(
      "GGUF metadata key '" + key + "' in '" + path_ + "' has type " +
      ggufValueTypeName(value.type) + ", expected " + expected);
}

llvm::Expected<int64_t>
GgufFile::integer(llvm::StringRef key, std::optional<int64_t> fallback) const {
  auto value = lookup(key, fallback.has_value());
  if (!value)
    return value.takeError();
  if (!*value)
    return *fallback;
  if (!(*value)->isInteger())
    return wrongType(key, **value, "an integer");
  if ((*value)->isSigned())
    return (*value)->sint;
  if ((*value)->uint > static_cast<uint64_t>(INT64_MAX))
    return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                   path_ + "' is out of range");
  return static_cast<int64_t>((*value)->uint);
}

llvm::Expected<const GgufValue *> GgufFile::array(llvm::StringRef key,
                                                  uint32_t elementType) const {
  auto value = lookup(key, /*optional=*/false);
  if (!value)
    return value.takeError();
  if ((*value)->type != kGgufArray || (*value)->elementType != elementType)
    return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                   path_ + "' must be an array of " +
                                   ggufValueTypeName(elementType));
  return *value;
}

llvm::Expected<int64_t>
GgufFile::positive(llvm::StringRef key, std::optional<int64_t> fallback) const {
  auto value = integer(key, fallback);
  if (!value)
    return value.takeError();
  if (*value <= 0)
    return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                   path_ + "' must be positive, got " +
                                   llvm::Twine(*value));
  return *value;
}

llvm::Expected<int64_t>
GgufFile::nonNegative(llvm::StringRef key,
                      std::optional<int64_t> fallback) const {
  auto value = integer(key, fallback);
  if (!value)
    return value.takeError();
  if (*value < 0)
    return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                   path_ + "' must not be negative, got " +
                                   llvm::Twine(*value));
  return *value;
}

llvm::Expected<double>
GgufFile::positiveReal(llvm::StringRef key,
                       std::optional<double> fallback) const {
  auto value = lookup(key, fallback.has_value());
  if (!value)
    return value.takeError();
  if (!*value)
    return *fallback;
  if (!(*value)->isReal())
    return wrongType(key, **value, "a float");
  // NaN fails every comparison and infinity passes `> 0`: both would reach
  // the network as constants and poison every output.
  if (!std::isfinite((*value)->real))
    return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                   path_ + "' must be finite, got " +
                                   std::to_string((*value)->real));
  if (!((*value)->real > 0))
    return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                   path_ + "' must be positive, got " +
                                   std::to_string((*value)->real));
  return (*value)->real;
}

llvm::Expected<std::string>
GgufFile::string(llvm::StringRef key,
                 std::optional<std::string> fallback) const {
  auto value = lookup(key, fallback.has_value());
  if (!value)
    return value.takeError();
  if (!*value)
    return *fallback;
  if ((*value)->type != kGgufString)
    return wrongType(key, **value, "a string");
  return (*value)->string.str();
}

llvm::Expected<bool> GgufFile::flag(llvm::StringRef key, bool fallback) const {
  const GgufValue *value = find(key);
  if (!value)
    return fallback;
  if (value->type != kGgufBool)
    return wrongType(key, *value, "a bool");
  return value->uint != 0;
}

std::optional<uint64_t> GgufFile::arraySize(llvm::StringRef key) const {
  const GgufValue *value = find(key);
  if (!value || value->type != kGgufArray)
    return std::nullopt;
  return value->count;
}
