//===- CudaDevice.cpp - A CUDA GPU as the runtime's device ----------------===//
#include "runtime/device/cuda/CudaDevice.h"

#include "runtime/ModelABI.h"
#include "runtime/device/cuda/LaunchGraphs.h"

#include <cstring>

using namespace tfm::cuda;

namespace tfm::rt {

namespace {

/// What cuMemAlloc guarantees without asking.
constexpr uint64_t kDriverAlignment = 256;

bool isPowerOfTwo(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

const char *describe(BufferUse use) {
  switch (use) {
  case BufferUse::Scratch:
    return "of device memory for the model's intermediates";
  case BufferUse::Cache:
    return "of device memory for the KV cache";
  case BufferUse::Weights:
    return "of device memory for the weights";
  }
  return "";
}

CUdeviceptr devicePointer(const void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

std::string errorName(const DriverApi &api, CUresult result) {
  const char *name = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(result, &name) == 0 && name)
    return name;
  return "CUDA error " + std::to_string(result);
}

} // namespace

std::unique_ptr<CudaDevice> CudaDevice::create(std::string &error) {
  const DriverApi *api = driver(&error);
  if (!api)
    return nullptr;
  CUstream stream = nullptr;
  CUresult result = api->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  if (result != CUDA_SUCCESS) {
    error = "error: cannot create a CUDA stream: cuStreamCreate: " +
            errorName(*api, result);
    return nullptr;
  }
  // The entries' launches run as CUDA graphs (LaunchGraphs.h).
  enableLaunchGraphs(*api, stream);
  return std::unique_ptr<CudaDevice>(new CudaDevice(*api, stream));
}

CudaDevice::~CudaDevice() {
  disableLaunchGraphs(stream_);
  // Work still queued must not outlive the buffers the runner frees next.
  api_.cuStreamSynchronize(stream_);
  api_.cuStreamDestroy(stream_);
}

uint32_t CudaDevice::kind() const { return TFM_DEVICE_CUDA; }

bool CudaDevice::succeeded(CUresult result, const char *call,
                           std::string &error) {
  if (result == CUDA_SUCCESS)
    return true;
  error = std::string("error: ") + call + ": " + errorName(api_, result);
  return false;
}

void *CudaDevice::allocate(uint64_t bytes, uint64_t alignment, BufferUse use,
                           std::string &error) {
  alignment = alignment ? alignment : 1;
  if (!isPowerOfTwo(alignment)) {
    error = "error: cannot allocate " + std::to_string(bytes) + " bytes " +
            describe(use) + ": the alignment " + std::to_string(alignment) +
            " is not a power of two";
    return nullptr;
  }
  // Stricter alignments than the driver's: allocate more and round up,
  // remembering the base for release().
  uint64_t extra = alignment > kDriverAlignment ? alignment : 0;
  uint64_t total = (bytes ? bytes : 1) + extra;
  CUdeviceptr base = 0;
  CUresult result = api_.cuMemAlloc(&base, total);
  if (result != CUDA_SUCCESS) {
    error = "error: cannot allocate " + std::to_string(total) + " bytes " +
            describe(use) + ": cuMemAlloc: " + errorName(api_, result);
    return nullptr;
  }
  CUdeviceptr aligned = (base + alignment - 1) / alignment * alignment;
  void *pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(aligned));
  if (aligned != base)
    bases_[pointer] = base;
  return pointer;
}

void CudaDevice::release(void *buffer) {
  if (!buffer)
    return;
  CUdeviceptr base = devicePointer(buffer);
  auto found = bases_.find(buffer);
  if (found != bases_.end()) {
    base = found->second;
    bases_.erase(found);
  }
  // Kernels queued on the stream may still read it.
  flushLaunches(stream_);
  api_.cuStreamSynchronize(stream_);
  api_.cuMemFree(base);
}

bool CudaDevice::copyToDevice(void *device, const void *host, uint64_t bytes,
                              std::string &error) {
  if (!bytes)
    return true;
  // Unified addressing: the driver sees that `host` is host memory. The
  // caller may reuse `host` on return, so the copy completes first.
  flushLaunches(stream_);
  return succeeded(api_.cuMemcpyAsync(devicePointer(device),
                                      devicePointer(host), bytes, stream_),
                   "cuMemcpyAsync", error) &&
         synchronize(error);
}

bool CudaDevice::copyToHost(void *host, const void *device, uint64_t bytes,
                            std::string &error) {
  if (!bytes)
    return true;
  flushLaunches(stream_);
  return succeeded(api_.cuMemcpyAsync(devicePointer(host),
                                      devicePointer(device), bytes, stream_),
                   "cuMemcpyAsync", error) &&
         synchronize(error);
}

bool CudaDevice::zero(void *device, uint64_t bytes, std::string &error) {
  if (!bytes)
    return true;
  flushLaunches(stream_);
  if (bytes % 4 == 0 && devicePointer(device) % 4 == 0)
    return succeeded(
        api_.cuMemsetD32Async(devicePointer(device), 0, bytes / 4, stream_),
        "cuMemsetD32Async", error);
  return succeeded(
      api_.cuMemsetD8Async(devicePointer(device), 0, bytes, stream_),
      "cuMemsetD8Async", error);
}

bool CudaDevice::synchronize(std::string &error) {
  flushLaunches(stream_);
  bool synchronized = succeeded(api_.cuStreamSynchronize(stream_),
                                "cuStreamSynchronize", error);
  // What the entries' launches and copies (MgpuWrappers.cpp) recorded
  // first says more than a later synchronisation's error.
  std::string launchError = firstError();
  if (launchError.empty())
    return synchronized;
  error = "error: the compiled code's device work failed: " + launchError;
  if (!synchronized)
    error += " (TFM_CUDA_LAUNCH_BLOCKING=1 names the kernel that faulted)";
  return false;
}

const uint8_t *CudaDevice::loadWeights(const uint8_t *mapped, uint64_t bytes,
                                       uint64_t alignment, DeviceBuffer &owner,
                                       std::string &error) {
  // Kernels read device memory: the blob is copied once, here.
  void *weights = allocate(bytes, alignment, BufferUse::Weights, error);
  if (!weights)
    return nullptr;
  owner = DeviceBuffer(*this, weights);
  if (!copyToDevice(weights, mapped, bytes, error)) {
    owner.reset();
    return nullptr;
  }
  return static_cast<const uint8_t *>(weights);
}

std::unique_ptr<Device> createCudaDevice(std::string &error) {
  return CudaDevice::create(error);
}

} // namespace tfm::rt

/// The host object of code compiled for CUDA refers to this symbol (the
/// CUDA backend emits the reference), so that linking it pulls this file,
/// and with it createCudaDevice, out of libtfmrt_cuda.a: the runtime refers
/// to createCudaDevice only weakly, which pulls nothing.
extern "C" {
extern const uint32_t tfm_cuda_runtime_abi;
const uint32_t tfm_cuda_runtime_abi = TFM_ABI_VERSION;
}
