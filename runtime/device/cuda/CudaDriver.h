//===- CudaDriver.h - The CUDA driver API, opened at run time ---*- C++ -*-===//
//
// Produced CUDA binaries must start on machines without a GPU or a driver
// (and say so), so they do not link libcuda: its entry points are looked up
// in libcuda.so.1 with dlopen/dlsym the first time they are needed. The
// types are the driver's ABI, declared here so that neither the runtime nor
// the compiler needs the CUDA toolkit's headers. Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_CUDA_CUDADRIVER_H
#define TFMC_RUNTIME_DEVICE_CUDA_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tfm::cuda {

// The driver's handle types (cuda.h), opaque here.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphNode = struct CUgraphNode_st *;
using CUgraphExec = struct CUgraphExec_st *;

/// A graph's kernel node: CUDA_KERNEL_NODE_PARAMS_v2 of cuda.h (`kernel`
/// and `context` unused: `function` names the kernel).
struct KernelNodeParams {
  CUfunction function;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedBytes;
  void **params;
  void **extra;
  void *kernel;
  CUcontext context;
};

constexpr CUresult CUDA_SUCCESS = 0;
/// cuStreamCreate: no implicit synchronisation with the legacy stream.
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
/// cuEventCreate: an event that only orders work, without timing.
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
/// cuDeviceGetAttribute: compute capability.
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

/// The driver entry points the runtime calls, as the driver exports them
/// (the `_v2` symbols where the plain name is the legacy 32-bit one).
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                            CUstream stream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned value, size_t count,
                               CUstream stream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr dst, unsigned short value,
                               size_t count, CUstream stream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value,
                              size_t count, CUstream stream);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  // CUDA graphs (LaunchGraphs.h); null where the driver lacks one of them
  // (cuFuncGetParamInfo came with CUDA 12.4), and the kernels are then
  // launched one by one.
  CUresult (*cuFuncGetParamInfo)(CUfunction function, size_t index,
                                 size_t *offset, size_t *bytes);
  CUresult (*cuGraphCreate)(CUgraph *graph, unsigned flags);
  CUresult (*cuGraphAddKernelNode)(CUgraphNode *node, CUgraph graph,
                                   const CUgraphNode *dependencies,
                                   size_t dependencyCount,
                                   const KernelNodeParams *params);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags);
  CUresult (*cuGraphExecKernelNodeSetParams)(CUgraphExec exec, CUgraphNode node,
                                             const KernelNodeParams *params);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);

  /// Whether every graph function is there.
  bool hasGraphs() const {
    return cuFuncGetParamInfo && cuGraphCreate && cuGraphAddKernelNode &&
           cuGraphInstantiateWithFlags && cuGraphExecKernelNodeSetParams &&
           cuGraphLaunch && cuGraphExecDestroy && cuGraphDestroy;
  }
};

/// The driver, loaded and initialised on first use with device
/// `TFM_CUDA_DEVICE` (default 0) current on the calling thread, or null when
/// there is none; `why` then says why ("no CUDA device: libcuda.so.1: ...").
const DriverApi *driver(std::string *why = nullptr);

/// Replaces the driver (tests: a fake that records calls; null: load
/// libcuda.so.1 again on next use). Resets the recorded error.
void setDriverForTesting(const DriverApi *fake);

/// The first driver error since start (or the last reset), formatted as
/// "cuLaunchKernel: CUDA_ERROR_...", or empty.
std::string firstError();
/// Forgets the recorded error.
void clearError();

/// Records `result` of `call` when it is an error; returns whether it was
/// a success.
bool check(CUresult result, const char *call);
/// Records `message` as the error unless one is recorded already.
void recordError(const std::string &message);

} // namespace tfm::cuda

#endif // TFMC_RUNTIME_DEVICE_CUDA_CUDADRIVER_H
