//===- MgpuWrappersTest.cpp - The mgpu* glue against a fake CUDA driver ---===//
#include "runtime/device/cuda/MgpuWrappers.h"
#include "runtime/device/cuda/test/FakeDriver.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tfm::cuda;
using namespace tfm::cuda::fake;

namespace {

/// The fake driver, and the glue's kernel table emptied after each test
/// (the fake hands out one module handle to every test).
class MgpuWrappers : public FakeDriver {
protected:
  void TearDown() override {
    mgpuModuleUnload(fakeModule);
    FakeDriver::TearDown();
  }
};

TEST_F(MgpuWrappers, LoadsFindsAndLaunchesAKernel) {
  char image[] = "fatbin";
  void *module = mgpuModuleLoad(image, sizeof(image));
  ASSERT_NE(module, nullptr);
  void *function = mgpuModuleGetFunction(module, "decode_kernel");
  ASSERT_NE(function, nullptr);
  void *stream = mgpuStreamCreate();
  ASSERT_EQ(stream, fakeStream);

  // A kernel of (memref base pointer, i64): the params point at them.
  void *buffer = reinterpret_cast<void *>(0x7000);
  int64_t position = 41;
  void *params[] = {&buffer, &position};
  mgpuLaunchKernel(function, 8, 2, 1, 128, 1, 1, 0, stream, params, nullptr, 2);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);

  EXPECT_EQ(calls.inits, 1);
  EXPECT_GE(calls.contexts, 1);
  ASSERT_EQ(calls.loaded.size(), 1u);
  EXPECT_EQ(calls.loaded[0], "fatbin");
  ASSERT_EQ(calls.functions.size(), 1u);
  EXPECT_EQ(calls.functions[0], "decode_kernel");
  ASSERT_EQ(calls.launches.size(), 1u);
  const Log::Launch &launch = calls.launches[0];
  EXPECT_EQ(launch.grid[0], 8u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.stream, fakeStream);
  EXPECT_EQ(launch.firstArgument, buffer);
  EXPECT_EQ(launch.secondArgument, 41);
  EXPECT_EQ(calls.syncs, 1);
  EXPECT_EQ(firstError(), "");
}

TEST_F(MgpuWrappers, CopiesAllocatesAndFrees) {
  void *stream = mgpuStreamCreate();
  void *buffer = mgpuMemAlloc(4096, stream, false);
  EXPECT_NE(buffer, nullptr);
  mgpuMemcpy(buffer, buffer, 256, stream);
  mgpuMemFree(buffer, stream);
  ASSERT_EQ(calls.allocations.size(), 1u);
  EXPECT_EQ(calls.allocations[0], 4096u);
  ASSERT_EQ(calls.copies.size(), 1u);
  EXPECT_EQ(calls.copies[0], 256u);
  EXPECT_EQ(calls.frees, 1);
  // Host-shared memory would need cuMemAllocManaged: refused, not faked.
  EXPECT_EQ(mgpuMemAlloc(16, stream, true), nullptr);
  EXPECT_EQ(firstError(), "mgpuMemAlloc: host-shared memory is not supported");
}

TEST_F(MgpuWrappers, RecordsTheFirstDriverError) {
  char image[] = "cubin";
  void *function =
      mgpuModuleGetFunction(mgpuModuleLoad(image, sizeof(image)), "k");
  int64_t zero = 0;
  void *pointer = nullptr;
  void *params[] = {&pointer, &zero};
  calls.launchResult = 700;
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr, 2);
  calls.launchResult = 0;
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr, 2);
  EXPECT_EQ(calls.launches.size(), 2u);
  EXPECT_EQ(firstError(), "kernel k (grid 1x1x1, block 32x1x1): "
                          "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS");
  clearError();
  EXPECT_EQ(firstError(), "");
}

TEST_F(MgpuWrappers, LaunchBlockingWaitsForEachKernel) {
  char image[] = "cubin";
  void *function =
      mgpuModuleGetFunction(mgpuModuleLoad(image, sizeof(image)), "rope");
  int64_t zero = 0;
  void *pointer = nullptr;
  void *params[] = {&pointer, &zero};
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr, 2);
  EXPECT_EQ(calls.syncs, 0);
  setenv("TFM_CUDA_LAUNCH_BLOCKING", "1", 1);
  mgpuLaunchKernel(function, 4, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr, 2);
  unsetenv("TFM_CUDA_LAUNCH_BLOCKING");
  EXPECT_EQ(calls.syncs, 1);
  EXPECT_EQ(firstError(), "");
}

TEST_F(MgpuWrappers, NoDeviceIsAnErrorNotACrash) {
  calls.devices = 0;
  char image[] = "fatbin";
  EXPECT_EQ(mgpuModuleLoad(image, sizeof(image)), nullptr);
  // Launching a kernel of a module that did not load does nothing.
  mgpuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_TRUE(calls.launches.empty());
  EXPECT_EQ(firstError(), "no CUDA device: the driver reports none");
}

TEST(NoDriver, MissingLibcudaIsReported) {
  setenv("TFM_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  setDriverForTesting(nullptr);
  std::string why;
  EXPECT_EQ(driver(&why), nullptr);
  EXPECT_EQ(why.rfind("no CUDA device: ", 0), 0u) << why;
  EXPECT_NE(why.find("/nonexistent/libcuda.so.1"), std::string::npos) << why;
  char image[] = "fatbin";
  EXPECT_EQ(mgpuModuleLoad(image, sizeof(image)), nullptr);
  EXPECT_EQ(firstError(), why);
  unsetenv("TFM_LIBCUDA");
}

} // namespace

TEST_F(MgpuWrappers, LooksEachKernelUpOnce) {
  // The host code looks the kernel up before every launch.
  char image[] = "cubin";
  void *module = mgpuModuleLoad(image, sizeof(image));
  static const char name[] = "decode_kernel_3";
  void *first = mgpuModuleGetFunction(module, name);
  void *second = mgpuModuleGetFunction(module, name);
  EXPECT_EQ(first, second);
  EXPECT_EQ(calls.functions.size(), 1u);
  // A module unloaded takes its kernels with it.
  mgpuModuleUnload(module);
  mgpuModuleGetFunction(mgpuModuleLoad(image, sizeof(image)), name);
  EXPECT_EQ(calls.functions.size(), 2u);
}
