//===- FakeDriver.h - A CUDA driver that records what it is asked -*- C++
//-*-===//
//
// The runtime's CUDA glue is tested without a GPU: this fake stands in for
// libcuda.so.1 (setDriverForTesting) and records module loads, launches
// (grid, block, stream, arguments), allocations, copies and memsets.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_CUDA_TEST_FAKEDRIVER_H
#define TFMC_RUNTIME_DEVICE_CUDA_TEST_FAKEDRIVER_H

#include "runtime/device/cuda/CudaDriver.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tfm::cuda::fake {

/// What the fake driver was asked to do.
struct Log {
  int inits = 0, contexts = 0;
  std::vector<std::string> loaded, functions;
  struct Launch {
    unsigned grid[3], block[3], shared;
    CUstream stream;
    void *firstArgument;
    int64_t secondArgument;
  };
  std::vector<Launch> launches;
  std::vector<size_t> copies, allocations;
  struct Copy {
    CUdeviceptr dst, src;
    size_t bytes;
    CUstream stream;
  };
  std::vector<Copy> copyCalls;
  std::vector<CUdeviceptr> freed;
  struct Memset {
    CUdeviceptr dst;
    size_t count;
    int width;
  };
  std::vector<Memset> memsets;
  int frees = 0, syncs = 0;
  CUdeviceptr nextAllocation = 0x5000;
  CUresult launchResult = CUDA_SUCCESS;
  int devices = 1;
  // CUDA graphs (withFakeGraphs).
  struct Node {
    unsigned grid[3];
    int64_t secondArgument;
    size_t dependencies;
  };
  std::vector<Node> nodes;
  struct Update {
    size_t node;
    unsigned grid[3];
    int64_t secondArgument;
  };
  std::vector<Update> updates;
  int graphsCreated = 0, instantiations = 0, graphLaunches = 0;
  int execsDestroyed = 0, graphsDestroyed = 0;
  CUresult updateResult = CUDA_SUCCESS;
  /// What reached the stream, in order: "kernel", "graph", "copy", "sync".
  std::vector<std::string> order;
};
inline Log calls;

// Handles the fake hands out.
inline CUcontext fakeContext = reinterpret_cast<CUcontext>(0x100);
inline CUmodule fakeModule = reinterpret_cast<CUmodule>(0x200);
inline CUfunction fakeFunction = reinterpret_cast<CUfunction>(0x300);
inline CUstream fakeStream = reinterpret_cast<CUstream>(0x400);

inline DriverApi fakeDriver() {
  DriverApi api{};
  api.cuInit = [](unsigned) -> CUresult { return ++calls.inits, 0; };
  api.cuDriverGetVersion = [](int *v) -> CUresult { return *v = 13000, 0; };
  api.cuDeviceGetCount = [](int *count) -> CUresult {
    return *count = calls.devices, 0;
  };
  api.cuDeviceGet = [](CUdevice *d, int ordinal) -> CUresult {
    return *d = ordinal, 0;
  };
  api.cuDevicePrimaryCtxRetain = [](CUcontext *c, CUdevice) -> CUresult {
    return *c = fakeContext, 0;
  };
  api.cuCtxSetCurrent = [](CUcontext c) -> CUresult {
    return calls.contexts += c == fakeContext, 0;
  };
  api.cuModuleLoadData = [](CUmodule *m, const void *image) -> CUresult {
    calls.loaded.push_back(static_cast<const char *>(image));
    return *m = fakeModule, 0;
  };
  api.cuModuleUnload = [](CUmodule) -> CUresult { return 0; };
  api.cuModuleGetFunction = [](CUfunction *f, CUmodule m,
                               const char *name) -> CUresult {
    if (m != fakeModule)
      return 400; // CUDA_ERROR_INVALID_HANDLE
    calls.functions.push_back(name);
    return *f = fakeFunction, 0;
  };
  api.cuLaunchKernel = [](CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                          unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, CUstream stream, void **params,
                          void **) -> CUresult {
    if (f != fakeFunction)
      return 400;
    calls.order.push_back("kernel");
    calls.launches.push_back({{gx, gy, gz},
                              {bx, by, bz},
                              shared,
                              stream,
                              *static_cast<void **>(params[0]),
                              *static_cast<int64_t *>(params[1])});
    return calls.launchResult;
  };
  api.cuMemAlloc = [](CUdeviceptr *p, size_t bytes) -> CUresult {
    calls.allocations.push_back(bytes);
    *p = calls.nextAllocation;
    return 0;
  };
  api.cuMemFree = [](CUdeviceptr p) -> CUresult {
    calls.freed.push_back(p);
    return ++calls.frees, 0;
  };
  api.cuMemcpyAsync = [](CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                         CUstream stream) -> CUresult {
    calls.order.push_back("copy");
    calls.copyCalls.push_back({dst, src, bytes, stream});
    return calls.copies.push_back(bytes), 0;
  };
  api.cuMemsetD32Async = [](CUdeviceptr dst, unsigned, size_t count,
                            CUstream) -> CUresult {
    return calls.memsets.push_back({dst, count, 4}), 0;
  };
  api.cuMemsetD8Async = [](CUdeviceptr dst, unsigned char, size_t count,
                           CUstream) -> CUresult {
    return calls.memsets.push_back({dst, count, 1}), 0;
  };
  api.cuMemsetD16Async = [](CUdeviceptr, unsigned short, size_t,
                            CUstream) -> CUresult { return 0; };
  api.cuStreamCreate = [](CUstream *s, unsigned flags) -> CUresult {
    return *s = flags == CU_STREAM_NON_BLOCKING ? fakeStream : nullptr, 0;
  };
  api.cuStreamDestroy = [](CUstream) -> CUresult { return 0; };
  api.cuStreamSynchronize = [](CUstream) -> CUresult {
    calls.order.push_back("sync");
    return ++calls.syncs, 0;
  };
  api.cuStreamWaitEvent = [](CUstream, CUevent, unsigned) -> CUresult {
    return 0;
  };
  api.cuEventCreate = [](CUevent *e, unsigned) -> CUresult {
    return *e = nullptr, 0;
  };
  api.cuEventDestroy = [](CUevent) -> CUresult { return 0; };
  api.cuEventRecord = [](CUevent, CUstream) -> CUresult { return 0; };
  api.cuEventSynchronize = [](CUevent) -> CUresult { return 0; };
  api.cuGetErrorName = [](CUresult error, const char **name) -> CUresult {
    *name = error == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_OTHER";
    return 0;
  };
  return api;
}

/// The fake with CUDA graphs: kernels of two 8-byte arguments (a pointer
/// and an i64, as the launches of the tests), nodes numbered from 1 in the
/// order they are added.
inline DriverApi withFakeGraphs(DriverApi api) {
  api.cuFuncGetParamInfo = [](CUfunction, size_t index, size_t *offset,
                              size_t *bytes) -> CUresult {
    if (index >= 2)
      return 1; // CUDA_ERROR_INVALID_VALUE
    *offset = 8 * index;
    *bytes = 8;
    return 0;
  };
  api.cuGraphCreate = [](CUgraph *graph, unsigned) -> CUresult {
    *graph = reinterpret_cast<CUgraph>(0x600 + ++calls.graphsCreated);
    return 0;
  };
  api.cuGraphAddKernelNode = [](CUgraphNode *node, CUgraph,
                                const CUgraphNode *dependencies, size_t count,
                                const KernelNodeParams *params) -> CUresult {
    // A chain: each node after the one added before it.
    if (count &&
        dependencies[0] != reinterpret_cast<CUgraphNode>(calls.nodes.size()))
      return 400;
    calls.nodes.push_back({{params->grid[0], params->grid[1], params->grid[2]},
                           *static_cast<int64_t *>(params->params[1]),
                           count});
    *node = reinterpret_cast<CUgraphNode>(calls.nodes.size());
    return 0;
  };
  api.cuGraphInstantiateWithFlags = [](CUgraphExec *exec, CUgraph,
                                       unsigned long long) -> CUresult {
    *exec = reinterpret_cast<CUgraphExec>(0x700 + ++calls.instantiations);
    return 0;
  };
  api.cuGraphExecKernelNodeSetParams =
      [](CUgraphExec, CUgraphNode node,
         const KernelNodeParams *params) -> CUresult {
    if (calls.updateResult != CUDA_SUCCESS)
      return calls.updateResult;
    calls.updates.push_back(
        {size_t(reinterpret_cast<uintptr_t>(node)),
         {params->grid[0], params->grid[1], params->grid[2]},
         *static_cast<int64_t *>(params->params[1])});
    return 0;
  };
  api.cuGraphLaunch = [](CUgraphExec, CUstream) -> CUresult {
    calls.order.push_back("graph");
    return ++calls.graphLaunches, 0;
  };
  api.cuGraphExecDestroy = [](CUgraphExec) -> CUresult {
    return ++calls.execsDestroyed, 0;
  };
  api.cuGraphDestroy = [](CUgraph) -> CUresult {
    return ++calls.graphsDestroyed, 0;
  };
  return api;
}

class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    calls = Log();
    api = fakeDriver();
    setDriverForTesting(&api);
  }
  void TearDown() override { setDriverForTesting(nullptr); }
  DriverApi api;
};

} // namespace tfm::cuda::fake

#endif // TFMC_RUNTIME_DEVICE_CUDA_TEST_FAKEDRIVER_H
