//===- CudaDevice.h - A CUDA GPU as the runtime's device --------*- C++ -*-===//
//
// Implements runtime/device/Device.h over the CUDA driver opened at run time
// (CudaDriver.h): buffers are cuMemAlloc'd device memory, the entries queue
// their kernels on the device's own stream (one per runner, so one per
// library context), and the weights are copied into device memory once.
// Plain C++, no MLIR and no CUDA headers.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_CUDA_CUDADEVICE_H
#define TFMC_RUNTIME_DEVICE_CUDA_CUDADEVICE_H

#include "runtime/device/Device.h"
#include "runtime/device/cuda/CudaDriver.h"

#include <unordered_map>

namespace tfm::rt {

class CudaDevice final : public Device {
public:
  /// A device with its own stream, or null with `error` set ("no CUDA
  /// device: ..." where there is no driver or no GPU).
  static std::unique_ptr<CudaDevice> create(std::string &error);
  ~CudaDevice() override;

  const char *name() const override { return "cuda"; }
  uint32_t kind() const override;

  void *allocate(uint64_t bytes, uint64_t alignment, BufferUse use,
                 std::string &error) override;
  void release(void *buffer) override;
  bool copyToDevice(void *device, const void *host, uint64_t bytes,
                    std::string &error) override;
  bool copyToHost(void *host, const void *device, uint64_t bytes,
                  std::string &error) override;
  bool zero(void *device, uint64_t bytes, std::string &error) override;
  bool synchronize(std::string &error) override;
  void *stream() override { return stream_; }
  const uint8_t *loadWeights(const uint8_t *mapped, uint64_t bytes,
                             uint64_t alignment, DeviceBuffer &owner,
                             std::string &error) override;

private:
  CudaDevice(const cuda::DriverApi &api, cuda::CUstream stream)
      : api_(api), stream_(stream) {}
  /// Whether `result` of `call` succeeded; `error` says why not.
  bool succeeded(cuda::CUresult result, const char *call, std::string &error);

  const cuda::DriverApi &api_;
  cuda::CUstream stream_;
  /// What cuMemAlloc returned for each buffer allocate() aligned further.
  std::unordered_map<void *, cuda::CUdeviceptr> bases_;
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_DEVICE_CUDA_CUDADEVICE_H
