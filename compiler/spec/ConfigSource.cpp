//===- ConfigSource.cpp - Typed access to a model file's hyperparameters --===//
#include "compiler/spec/ConfigSource.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace tfmc;

ConfigSource::~ConfigSource() = default;

llvm::Error ConfigSource::read(llvm::StringRef key, int64_t &out,
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
