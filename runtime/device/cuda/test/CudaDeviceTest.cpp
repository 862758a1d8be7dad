//===- CudaDeviceTest.cpp - The runtime's CUDA device on a fake driver ----===//
//
// What the runners do through runtime/device/Device.h, on a CUDA device
// whose driver is the fake of FakeDriver.h: the device is the one
// createDevice picks for TFM_DEVICE_CUDA, allocations honour the alignment
// asked for, copies and zeroing go to its own stream, and the weights are
// copied to device memory once.
//
//===----------------------------------------------------------------------===//
#include "runtime/device/cuda/CudaDevice.h"
#include "runtime/ModelABI.h"
#include "runtime/device/cuda/test/FakeDriver.h"

#include <gtest/gtest.h>

using namespace tfm::cuda;
using namespace tfm::cuda::fake;
using namespace tfm::rt;

namespace {

using CudaDeviceTest = FakeDriver;

TEST_F(CudaDeviceTest, IsWhatCreateDevicePicksForCuda) {
  std::string error;
  // Naming CudaDevice links its object, which defines createCudaDevice (a
  // weak reference of createDevice), as a CUDA backend's code does.
  ASSERT_TRUE(CudaDevice::create(error)) << error;
  std::unique_ptr<Device> device = createDevice(TFM_DEVICE_CUDA, error);
  ASSERT_TRUE(device) << error;
  EXPECT_STREQ(device->name(), "cuda");
  EXPECT_EQ(device->kind(), uint32_t(TFM_DEVICE_CUDA));
  // Its own stream: what the entries take as their `stream`.
  EXPECT_EQ(device->stream(), fakeStream);
}

TEST_F(CudaDeviceTest, AlignsBeyondTheDriverAndFreesTheBase) {
  std::string error;
  std::unique_ptr<Device> device = createDevice(TFM_DEVICE_CUDA, error);
  ASSERT_TRUE(device) << error;
  calls.nextAllocation = 0x10100; // 256-aligned, not 4096-aligned
  void *buffer = device->allocate(1000, 4096, BufferUse::Cache, error);
  ASSERT_TRUE(buffer) << error;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer), 0x11000u);
  ASSERT_EQ(calls.allocations.size(), 1u);
  EXPECT_EQ(calls.allocations[0], 1000u + 4096u);
  device->release(buffer);
  ASSERT_EQ(calls.freed.size(), 1u);
  EXPECT_EQ(calls.freed[0], 0x10100u);

  EXPECT_FALSE(device->allocate(16, 24, BufferUse::Scratch, error));
  EXPECT_NE(error.find("not a power of two"), std::string::npos) << error;
}

TEST_F(CudaDeviceTest, CopiesAndZeroesOnItsStream) {
  std::string error;
  std::unique_ptr<Device> device = createDevice(TFM_DEVICE_CUDA, error);
  ASSERT_TRUE(device) << error;
  void *buffer = device->allocate(64, 64, BufferUse::Scratch, error);
  ASSERT_TRUE(buffer) << error;
  float host[16] = {1.0f};
  ASSERT_TRUE(device->copyToDevice(buffer, host, sizeof(host), error));
  ASSERT_TRUE(device->copyToHost(host, buffer, sizeof(host), error));
  ASSERT_EQ(calls.copyCalls.size(), 2u);
  EXPECT_EQ(calls.copyCalls[0].dst, reinterpret_cast<uintptr_t>(buffer));
  EXPECT_EQ(calls.copyCalls[0].src, reinterpret_cast<uintptr_t>(host));
  EXPECT_EQ(calls.copyCalls[1].dst, reinterpret_cast<uintptr_t>(host));
  for (const auto &copy : calls.copyCalls) {
    EXPECT_EQ(copy.bytes, sizeof(host));
    EXPECT_EQ(copy.stream, fakeStream);
  }
  // Each copy completes before it returns: the host buffer may be reused.
  EXPECT_GE(calls.syncs, 2);

  ASSERT_TRUE(device->zero(buffer, 64, error));
  ASSERT_TRUE(device->zero(buffer, 3, error));
  ASSERT_EQ(calls.memsets.size(), 2u);
  EXPECT_EQ(calls.memsets[0].width, 4);
  EXPECT_EQ(calls.memsets[0].count, 16u);
  EXPECT_EQ(calls.memsets[1].width, 1);
  EXPECT_EQ(calls.memsets[1].count, 3u);
  device->release(buffer);
}

TEST_F(CudaDeviceTest, CopiesTheWeightsOnce) {
  std::string error;
  std::unique_ptr<Device> device = createDevice(TFM_DEVICE_CUDA, error);
  ASSERT_TRUE(device) << error;
  alignas(64) static const uint8_t blob[128] = {7};
  DeviceBuffer owner;
  const uint8_t *weights =
      device->loadWeights(blob, sizeof(blob), 64, owner, error);
  ASSERT_TRUE(weights) << error;
  EXPECT_NE(weights, blob);
  EXPECT_EQ(owner.get(), weights);
  ASSERT_EQ(calls.copyCalls.size(), 1u);
  EXPECT_EQ(calls.copyCalls[0].src, reinterpret_cast<uintptr_t>(blob));
  EXPECT_EQ(calls.copyCalls[0].bytes, sizeof(blob));
  owner.reset();
  EXPECT_EQ(calls.frees, 1);
}

TEST_F(CudaDeviceTest, NoGpuIsAnError) {
  calls.devices = 0;
  std::string error;
  EXPECT_FALSE(createDevice(TFM_DEVICE_CUDA, error));
  EXPECT_EQ(error, "no CUDA device: the driver reports none");
}

} // namespace
