//===- HostDevice.h - The host as a device: this process's memory -*- C++
//-*-===//
//
// Code compiled for TFM_DEVICE_HOST runs on the calling thread and reads
// host memory: small buffers come from aligned_alloc, large ones (the KV
// cache, a long context's scratch) are anonymous mappings whose pages the
// OS commits as the code first touches them, copies are memcpy, there is
// no stream to wait for, and the weights are the package's mapping itself.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_HOST_HOSTDEVICE_H
#define TFMC_RUNTIME_DEVICE_HOST_HOSTDEVICE_H

#include "runtime/device/Device.h"

#include <map>

namespace tfm::rt {

class HostDevice final : public Device {
public:
  const char *name() const override { return "host"; }
  uint32_t kind() const override;

  void *allocate(uint64_t bytes, uint64_t alignment, BufferUse use,
                 std::string &error) override;
  void release(void *buffer) override;
  bool copyToDevice(void *device, const void *host, uint64_t bytes,
                    std::string &error) override;
  bool copyToHost(void *host, const void *device, uint64_t bytes,
                  std::string &error) override;
  bool zero(void *device, uint64_t bytes, std::string &error) override;
  /// Reports what generated code recorded as failed (HostKernelErrors.h).
  bool synchronize(std::string &error) override;
  void *stream() override { return nullptr; }
  const uint8_t *loadWeights(const uint8_t *mapped, uint64_t bytes,
                             uint64_t alignment, DeviceBuffer &owner,
                             std::string &error) override;

private:
  /// The anonymous mappings allocate() made: address -> the whole mapping
  /// (start, bytes), the address lying inside it when aligned up.
  struct Mapping {
    void *start;
    uint64_t bytes;
  };
  std::map<void *, Mapping> mappings_;
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_DEVICE_HOST_HOSTDEVICE_H
