//===- HostKernelErrors.cpp - Failures of host code that returns nothing --===//
#include "runtime/device/host/HostKernelErrors.h"

#include <mutex>

namespace {

struct FirstError {
  std::mutex mutex;
  std::string message;
};

/// Never destroyed: kernels may still report while statics are torn down.
FirstError &firstError() {
  static FirstError *error = new FirstError;
  return *error;
}

} // namespace

void tfm::rt::reportHostKernelError(const std::string &message) {
  FirstError &error = firstError();
  std::lock_guard<std::mutex> lock(error.mutex);
  if (error.message.empty())
    error.message = message;
}

bool tfm::rt::takeHostKernelError(std::string &error) {
  FirstError &first = firstError();
  std::lock_guard<std::mutex> lock(first.mutex);
  if (first.message.empty())
    return false;
  error = std::move(first.message);
  first.message.clear();
  return true;
}
