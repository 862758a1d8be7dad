//===- MgpuWrappers.cpp - The mgpu* functions of MLIR's GPU host code -----===//
//
// The host code that gpu-to-llvm and the gpu.binary embedding generate
// calls these (what MLIR's libmlir_cuda_runtime provides, which Debian does
// not ship), with the signatures MLIR 22 emits. They run on the driver
// opened at run time (CudaDriver.h). Nothing here aborts: without a driver
// or on a driver error, the first error is recorded (tfm::cuda::firstError)
// and the call does nothing or returns null, so that the runtime can say
// what went wrong and exit cleanly. In particular the modules are loaded by
// a global constructor, before main: on a machine without a GPU that load
// fails silently and main reports `no CUDA device`.
//
//===----------------------------------------------------------------------===//
#include "runtime/device/cuda/MgpuWrappers.h"

#include "runtime/device/cuda/CudaDriver.h"
#include "runtime/device/cuda/LaunchGraphs.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

using namespace tfm::cuda;

namespace {

/// The driver, recording why there is none.
const DriverApi *api() {
  std::string why;
  const DriverApi *driverApi = driver(&why);
  if (!driverApi)
    recordError(why);
  return driverApi;
}

CUdeviceptr devicePointer(void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

/// TFM_CUDA_LAUNCH_BLOCKING=1: every launch waits for its kernel, so that a
/// kernel that faults is named in the error (as CUDA_LAUNCH_BLOCKING does
/// for the runtime API), at the cost of all overlap.
bool launchBlocking() {
  const char *value = std::getenv("TFM_CUDA_LAUNCH_BLOCKING");
  return value && *value && std::strcmp(value, "0") != 0;
}

/// The kernels looked up: the host code looks a kernel up before each of
/// its launches (by the address of its name, a constant of the host
/// object), which would otherwise cost a driver call per launch; and their
/// names, for errors.
struct KernelTable {
  std::mutex mutex;
  std::map<std::pair<CUmodule, const char *>, CUfunction> functions;
  std::map<CUfunction, std::string> names;
};

KernelTable &kernelTable() {
  // Never destroyed: the module is unloaded by a destructor of the host
  // object (.fini_array), which runs after the static objects are gone.
  static KernelTable *instance = new KernelTable;
  return *instance;
}

std::string kernelName(CUfunction function) {
  KernelTable &table = kernelTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.names.find(function);
  return found == table.names.end() ? std::string("?") : found->second;
}

} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, uint64_t /*bytes*/) {
  const DriverApi *d = api();
  CUmodule module = nullptr;
  // A fatbin or a cubin: the driver picks the image of its device's arch,
  // or compiles the PTX for it.
  if (d && !check(d->cuModuleLoadData(&module, data), "cuModuleLoadData"))
    module = nullptr;
  return module;
}

void *mgpuModuleLoadJIT(void *data, int32_t /*optLevel*/, uint64_t /*bytes*/) {
  // PTX text: cuModuleLoadData compiles it (at the driver's default -O3).
  return mgpuModuleLoad(data, 0);
}

void mgpuModuleUnload(void *module) {
  const DriverApi *d = module ? api() : nullptr;
  if (!d)
    return;
  // Its functions go with it (a later module may take its address).
  KernelTable &table = kernelTable();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    for (auto it = table.functions.begin(); it != table.functions.end();)
      it =
          it->first.first == module ? table.functions.erase(it) : std::next(it);
  }
  check(d->cuModuleUnload(static_cast<CUmodule>(module)), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  const DriverApi *d = module ? api() : nullptr;
  if (!d)
    return nullptr;
  auto cuModule = static_cast<CUmodule>(module);
  KernelTable &table = kernelTable();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    auto found = table.functions.find({cuModule, name});
    if (found != table.functions.end())
      return found->second;
  }
  CUfunction function = nullptr;
  if (!check(d->cuModuleGetFunction(&function, cuModule, name),
             "cuModuleGetFunction"))
    return nullptr;
  std::lock_guard<std::mutex> lock(table.mutex);
  table.functions[{cuModule, name}] = function;
  table.names[function] = name;
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t paramCount) {
  if (!function) {
    // The module did not load: that error is already recorded.
    recordError("mgpuLaunchKernel: the kernel's module did not load");
    return;
  }
  const DriverApi *d = api();
  if (!d)
    return;
  auto kernel = static_cast<CUfunction>(function);
  auto cuStream = static_cast<CUstream>(stream);
  if (LaunchGraphs *graphs = extra ? nullptr : launchGraphs(cuStream)) {
    const unsigned grid[3] = {unsigned(gridX), unsigned(gridY),
                              unsigned(gridZ)};
    const unsigned block[3] = {unsigned(blockX), unsigned(blockY),
                               unsigned(blockZ)};
    if (graphs->record(kernel, grid, block, unsigned(sharedBytes), params,
                       paramCount))
      return;
    // Not recordable: what was recorded runs first, in order.
    graphs->flush(cuStream);
  }
  CUresult result = d->cuLaunchKernel(
      kernel, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes,
      static_cast<CUstream>(stream), params, extra);
  const char *call = "cuLaunchKernel";
  if (result == CUDA_SUCCESS && launchBlocking()) {
    result = d->cuStreamSynchronize(static_cast<CUstream>(stream));
    call = "cuStreamSynchronize";
  }
  if (result != CUDA_SUCCESS) {
    std::string where = "kernel " + kernelName(kernel) + " (grid " +
                        std::to_string(gridX) + "x" + std::to_string(gridY) +
                        "x" + std::to_string(gridZ) + ", block " +
                        std::to_string(blockX) + "x" + std::to_string(blockY) +
                        "x" + std::to_string(blockZ) + "): " + call;
    check(result, where.c_str());
  }
}

void *mgpuStreamCreate() {
  const DriverApi *d = api();
  CUstream stream = nullptr;
  if (d && !check(d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                  "cuStreamCreate"))
    stream = nullptr;
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  const DriverApi *d = stream ? api() : nullptr;
  disableLaunchGraphs(static_cast<CUstream>(stream));
  if (d)
    check(d->cuStreamDestroy(static_cast<CUstream>(stream)), "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  const DriverApi *d = api();
  flushLaunches(static_cast<CUstream>(stream));
  if (d)
    check(d->cuStreamSynchronize(static_cast<CUstream>(stream)),
          "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  const DriverApi *d = api();
  flushLaunches(static_cast<CUstream>(stream));
  if (d)
    check(d->cuStreamWaitEvent(static_cast<CUstream>(stream),
                               static_cast<CUevent>(event), 0),
          "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  const DriverApi *d = api();
  CUevent event = nullptr;
  if (d && !check(d->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                  "cuEventCreate"))
    event = nullptr;
  return event;
}

void mgpuEventDestroy(void *event) {
  const DriverApi *d = event ? api() : nullptr;
  if (d)
    check(d->cuEventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  const DriverApi *d = api();
  if (d)
    check(d->cuEventSynchronize(static_cast<CUevent>(event)),
          "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  const DriverApi *d = api();
  flushLaunches(static_cast<CUstream>(stream));
  if (d)
    check(d->cuEventRecord(static_cast<CUevent>(event),
                           static_cast<CUstream>(stream)),
          "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/, bool isHostShared) {
  const DriverApi *d = api();
  if (!d)
    return nullptr;
  if (isHostShared) {
    recordError("mgpuMemAlloc: host-shared memory is not supported");
    return nullptr;
  }
  CUdeviceptr pointer = 0;
  if (!check(d->cuMemAlloc(&pointer, bytes), "cuMemAlloc"))
    return nullptr;
  return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
}

void mgpuMemFree(void *pointer, void *stream) {
  const DriverApi *d = pointer ? api() : nullptr;
  // Recorded kernels may read it.
  if (stream)
    flushLaunches(static_cast<CUstream>(stream));
  if (d)
    check(d->cuMemFree(devicePointer(pointer)), "cuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  const DriverApi *d = api();
  flushLaunches(static_cast<CUstream>(stream));
  if (d)
    check(d->cuMemcpyAsync(devicePointer(dst), devicePointer(src), bytes,
                           static_cast<CUstream>(stream)),
          "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream) {
  const DriverApi *d = api();
  flushLaunches(static_cast<CUstream>(stream));
  if (d)
    check(d->cuMemsetD32Async(devicePointer(dst), value, count,
                              static_cast<CUstream>(stream)),
          "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  const DriverApi *d = api();
  flushLaunches(static_cast<CUstream>(stream));
  if (d)
    check(d->cuMemsetD16Async(devicePointer(dst), value, count,
                              static_cast<CUstream>(stream)),
          "cuMemsetD16Async");
}

void mgpuSetDefaultDevice(int32_t /*device*/) {
  // The device is chosen once, by TFM_CUDA_DEVICE (CudaDriver.cpp).
}

} // extern "C"
