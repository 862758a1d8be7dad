//===- Device.cpp - Select the device a compiled model runs on ------------===//
#include "runtime/device/Device.h"

#include "runtime/ModelABI.h"
#include "runtime/device/host/HostDevice.h"

namespace tfm::rt {

std::unique_ptr<Device> createDevice(uint32_t kind, std::string &error) {
  switch (kind) {
  case TFM_DEVICE_HOST:
    return std::make_unique<HostDevice>();
  case TFM_DEVICE_CUDA:
    if (createCudaDevice)
      return createCudaDevice(error);
    error = "the model was compiled for a CUDA device (tfm_model.device " +
            std::to_string(kind) +
            "), but this runtime was built without CUDA support: link the "
            "CUDA device runtime (runtime/device/cuda) with it";
    return nullptr;
  default:
    error = "the model was compiled for device " + std::to_string(kind) +
            ", which this runtime does not know (it runs " +
            std::to_string(TFM_DEVICE_HOST) + ": host and " +
            std::to_string(TFM_DEVICE_CUDA) +
            ": CUDA); rebuild with a matching tfmc";
    return nullptr;
  }
}

} // namespace tfm::rt
