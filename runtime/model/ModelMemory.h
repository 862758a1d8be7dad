//===- ModelMemory.h - A compiled model's buffers on its device -*- C++ -*-===//
//
// Everything the entries read or write on tfm_model.device: the weights
// made available there, the scratch of their intermediates and, for a model
// with one, the KV cache. Each runner (so each library context) owns one,
// and with it its own device and stream.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_MODEL_MODELMEMORY_H
#define TFMC_RUNTIME_MODEL_MODELMEMORY_H

#include "runtime/ModelABI.h"
#include "runtime/device/Device.h"

#include <memory>
#include <string>

namespace tfm::rt {

class ModelMemory {
public:
  /// Why open() failed: the device (none of its kind in this program, or
  /// the weights unusable there) or memory.
  enum class Failure { None, Device, Memory };

  ModelMemory() = default;
  ModelMemory(const ModelMemory &) = delete;
  ModelMemory &operator=(const ModelMemory &) = delete;
  /// Waits for the work queued on the device before its buffers go.
  ~ModelMemory();

  /// Selects the device `info.device` names, makes the weights blob
  /// (`weights`, mapped from the package) available there and allocates the
  /// scratch and the zeroed cache. False with `error` set (a message that
  /// starts with "error: ") when the device is missing, the weights are
  /// misaligned or memory is short.
  bool open(const tfm_model_info &info, const uint8_t *weights,
            std::string &error);
  Failure failure() const { return failure_; }

  Device &device() { return *device_; }
  /// What the entries take as `weights`, `cache`, `scratch` and `stream`.
  const uint8_t *weights() const { return weights_; }
  void *cache() const { return cache_.get(); }
  uint8_t *scratch() const { return static_cast<uint8_t *>(scratch_.get()); }
  void *stream() const { return device_->stream(); }

private:
  std::unique_ptr<Device> device_;
  // Declared after the device, which frees them.
  DeviceBuffer weightsCopy_; ///< empty where the code reads the mapping
  const uint8_t *weights_ = nullptr;
  DeviceBuffer scratch_;
  DeviceBuffer cache_;
  Failure failure_ = Failure::None;
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_MODEL_MODELMEMORY_H
