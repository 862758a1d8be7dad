//===- ConfigSource.cpp - Typed access to a model file's hyperparameters --===//
#include "compiler/spec/ConfigSource.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace tfmc;

ConfigSource::~ConfigSource() = default;

llvm::Error ConfigSource::withinLimit(llvm::StringRef key,
                                      llvm::Expected<int64_t> value,
                                      int64_t &out) const {
  if (!value)
    return value.takeError();
  if (*value > kMaxInteger)
    return llvm::createStringError(
        "'" + key + "' in " + describe() + " is " + llvm::Twine(*value) +
        ", above tfmc's limit of " + llvm::Twine(kMaxInteger) +
        " for a size or count");
  out = *value;
  return llvm::Error::success();
}

llvm::Expected<std::vector<double>>
ConfigSource::reals(llvm::StringRef key) const {
  return llvm::createStringError(describe() + ": '" + key +
                                 "' would be a list of numbers, which tfmc "
                                 "reads from config.json files only");
}

llvm::Error ConfigSource::read(llvm::StringRef key, int64_t &out,
                               std::optional<int64_t> fallback) const {
  return withinLimit(key, positive(key, fallback), out);
}

llvm::Error ConfigSource::readCount(llvm::StringRef key, int64_t &out,
                                    std::optional<int64_t> fallback) const {
  return withinLimit(key, nonNegative(key, fallback), out);
}

llvm::Error
ConfigSource::readContextLength(llvm::StringRef key, int64_t &out,
                                std::optional<int64_t> fallback) const {
  llvm::Expected<int64_t> value = positive(key, fallback);
  if (!value)
    return value.takeError();
  out = *value;
  return llvm::Error::success();
}

llvm::Error ConfigSource::read(llvm::StringRef key, float &out,
                               std::optional<double> fallback) const {
  llvm::Expected<double> value = positiveReal(key, fallback);
  if (!value)
    return value.takeError();
  // A finite double may still overflow the f32 the network computes in.
  if (!std::isfinite(static_cast<float>(*value)))
    return llvm::createStringError("'" + key + "' in " + describe() + " is " +
                                   llvm::formatv("{0:e}", *value).str() +
                                   ", beyond the range of a 32-bit float");
  out = static_cast<float>(*value);
  return llvm::Error::success();
}
