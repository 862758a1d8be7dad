//===- ModelMemory.cpp - A compiled model's buffers on its device ---------===//
#include "runtime/model/ModelMemory.h"

namespace tfm::rt {

ModelMemory::~ModelMemory() {
  std::string ignored;
  if (device_)
    device_->synchronize(ignored);
}

bool ModelMemory::open(const tfm_model_info &info, const uint8_t *weights,
                       std::string &error) {
  // Only a package's random weights, filled on first use, can be missing.
  if (!weights && info.weights_bytes != 0) {
    failure_ = Failure::Memory;
    error = "error: out of memory: cannot allocate the " +
            std::to_string(info.weights_bytes) + " bytes of the random weights";
    return false;
  }
  std::string reason;
  failure_ = Failure::Device;
  device_ = createDevice(info.device, reason);
  if (!device_) {
    error = "error: " + reason;
    return false;
  }
  weights_ = device_->loadWeights(weights, info.weights_bytes,
                                  info.weights_alignment, weightsCopy_, error);
  if (!weights_)
    return false;
  failure_ = Failure::Memory;
  void *scratch = device_->allocate(info.scratch_bytes, info.scratch_alignment,
                                    BufferUse::Scratch, error);
  if (!scratch)
    return false;
  scratch_ = DeviceBuffer(*device_, scratch);
  if (info.cache_bytes == 0) {
    failure_ = Failure::None;
    return true;
  }
  // Vector-width loads in generated code want 64-byte alignment.
  void *cache =
      device_->allocate(info.cache_bytes, 64, BufferUse::Cache, error);
  if (!cache)
    return false;
  cache_ = DeviceBuffer(*device_, cache);
  // Zeroed, as the runners' caches always were, so that no call ever
  // reads uninitialised memory.
  failure_ = Failure::Device;
  if (!device_->zero(cache, info.cache_bytes, error))
    return false;
  failure_ = Failure::None;
  return true;
}

} // namespace tfm::rt
