//===- CudaDriver.cpp - The CUDA driver API, opened at run time -----------===//
#include "runtime/device/cuda/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>

namespace tfm::cuda {
namespace {

struct State {
  std::mutex mutex;
  bool loaded = false;
  const DriverApi *api = nullptr;
  DriverApi table{};
  CUcontext context = nullptr;
  std::string why;
  std::string firstError;
};

State &state() {
  // Never destroyed: the host object's destructor unloads its module
  // through the driver after the static objects are gone (.fini_array runs
  // after the atexit destructors).
  static State *instance = new State;
  return *instance;
}

/// Binds `*slot` to `name` in `library`; false (and `why`) when missing.
template <typename Fn>
bool bind(void *library, Fn *slot, const char *name, std::string &why) {
  void *symbol = dlsym(library, name);
  if (!symbol) {
    why = std::string("no CUDA device: libcuda.so.1 lacks ") + name;
    return false;
  }
  *slot = reinterpret_cast<Fn>(symbol);
  return true;
}

/// Binds the graph functions a driver may lack; true whatever it has
/// (DriverApi::hasGraphs says whether graphs can be used).
bool bindGraphs(void *library, DriverApi &api) {
  auto optional = [&](auto *slot, const char *name) {
    *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(
        dlsym(library, name));
  };
  optional(&api.cuFuncGetParamInfo, "cuFuncGetParamInfo");
  optional(&api.cuGraphCreate, "cuGraphCreate");
  // The _v2 entry points take CUDA_KERNEL_NODE_PARAMS_v2 (KernelNodeParams).
  optional(&api.cuGraphAddKernelNode, "cuGraphAddKernelNode_v2");
  optional(&api.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  optional(&api.cuGraphExecKernelNodeSetParams,
           "cuGraphExecKernelNodeSetParams_v2");
  optional(&api.cuGraphLaunch, "cuGraphLaunch");
  optional(&api.cuGraphExecDestroy, "cuGraphExecDestroy");
  optional(&api.cuGraphDestroy, "cuGraphDestroy");
  return true;
}

bool loadLibrary(DriverApi &api, std::string &why) {
  const char *path = std::getenv("TFM_LIBCUDA");
  void *library =
      dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *error = dlerror();
    why = std::string("no CUDA device: ") +
          (error ? error : "libcuda.so.1 could not be loaded");
    return false;
  }
  return bind(library, &api.cuInit, "cuInit", why) &&
         bind(library, &api.cuDriverGetVersion, "cuDriverGetVersion", why) &&
         bind(library, &api.cuDeviceGetCount, "cuDeviceGetCount", why) &&
         bind(library, &api.cuDeviceGet, "cuDeviceGet", why) &&
         bind(library, &api.cuDeviceGetName, "cuDeviceGetName", why) &&
         bind(library, &api.cuDeviceGetAttribute, "cuDeviceGetAttribute",
              why) &&
         bind(library, &api.cuDevicePrimaryCtxRetain,
              "cuDevicePrimaryCtxRetain", why) &&
         bind(library, &api.cuCtxSetCurrent, "cuCtxSetCurrent", why) &&
         bind(library, &api.cuModuleLoadData, "cuModuleLoadData", why) &&
         bind(library, &api.cuModuleUnload, "cuModuleUnload", why) &&
         bind(library, &api.cuModuleGetFunction, "cuModuleGetFunction", why) &&
         bind(library, &api.cuLaunchKernel, "cuLaunchKernel", why) &&
         bind(library, &api.cuMemAlloc, "cuMemAlloc_v2", why) &&
         bind(library, &api.cuMemFree, "cuMemFree_v2", why) &&
         bind(library, &api.cuMemcpyAsync, "cuMemcpyAsync", why) &&
         bind(library, &api.cuMemsetD32Async, "cuMemsetD32Async", why) &&
         bind(library, &api.cuMemsetD16Async, "cuMemsetD16Async", why) &&
         bind(library, &api.cuMemsetD8Async, "cuMemsetD8Async", why) &&
         bind(library, &api.cuStreamCreate, "cuStreamCreate", why) &&
         bind(library, &api.cuStreamDestroy, "cuStreamDestroy_v2", why) &&
         bind(library, &api.cuStreamSynchronize, "cuStreamSynchronize", why) &&
         bind(library, &api.cuStreamWaitEvent, "cuStreamWaitEvent", why) &&
         bind(library, &api.cuEventCreate, "cuEventCreate", why) &&
         bind(library, &api.cuEventDestroy, "cuEventDestroy_v2", why) &&
         bind(library, &api.cuEventRecord, "cuEventRecord", why) &&
         bind(library, &api.cuEventSynchronize, "cuEventSynchronize", why) &&
         bind(library, &api.cuGetErrorName, "cuGetErrorName", why) &&
         bindGraphs(library, api);
}

std::string errorName(const DriverApi &api, CUresult result) {
  const char *name = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(result, &name) == 0 && name)
    return name;
  return "CUDA error " + std::to_string(result);
}

/// Initialises the driver and makes the primary context of the chosen
/// device current.
bool initialise(const DriverApi &api, State &s) {
  CUresult result = api.cuInit(0);
  if (result != CUDA_SUCCESS) {
    s.why = "no CUDA device: cuInit: " + errorName(api, result);
    return false;
  }
  int count = 0;
  result = api.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS || count == 0) {
    s.why = "no CUDA device: the driver reports none";
    return false;
  }
  int ordinal = 0;
  if (const char *chosen = std::getenv("TFM_CUDA_DEVICE"))
    ordinal = std::atoi(chosen);
  if (ordinal < 0 || ordinal >= count) {
    s.why = "no CUDA device: TFM_CUDA_DEVICE=" + std::to_string(ordinal) +
            " but the driver reports " + std::to_string(count);
    return false;
  }
  CUdevice device = 0;
  if ((result = api.cuDeviceGet(&device, ordinal)) != CUDA_SUCCESS ||
      (result = api.cuDevicePrimaryCtxRetain(&s.context, device)) !=
          CUDA_SUCCESS) {
    s.why = "no CUDA device: " + errorName(api, result);
    return false;
  }
  return true;
}

} // namespace

const DriverApi *driver(std::string *why) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.loaded) {
    s.loaded = true;
    if (!s.api && loadLibrary(s.table, s.why))
      s.api = &s.table;
    if (s.api && !initialise(*s.api, s))
      s.api = nullptr;
  }
  if (!s.api) {
    if (why)
      *why = s.why;
    return nullptr;
  }
  // Every thread that calls into the driver works in the same context.
  s.api->cuCtxSetCurrent(s.context);
  return s.api;
}

void setDriverForTesting(const DriverApi *fake) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  // A fake is initialised like the real driver on first use; without one,
  // the next use loads libcuda.so.1.
  s.api = fake;
  s.loaded = false;
  s.context = nullptr;
  s.why.clear();
  s.firstError.clear();
}

std::string firstError() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.firstError;
}

void clearError() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.firstError.clear();
}

void recordError(const std::string &message) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.firstError.empty())
    s.firstError = message;
}

bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  std::string name;
  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    name = s.api ? errorName(*s.api, result)
                 : "CUDA error " + std::to_string(result);
  }
  recordError(std::string(call) + ": " + name);
  return false;
}

} // namespace tfm::cuda
