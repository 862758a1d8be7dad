//===- DeviceTest.cpp - The runtime's device seam -------------------------===//
//
// The host device (runtime/device/host) and createDevice's choice by
// tfm_model.device, including the error for a CUDA model in a runtime
// built without CUDA.
//
//===----------------------------------------------------------------------===//
#include "runtime/device/Device.h"
#include "runtime/ModelABI.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace tfm::rt;

namespace {

std::unique_ptr<Device> hostDevice() {
  std::string error;
  std::unique_ptr<Device> device = createDevice(TFM_DEVICE_HOST, error);
  EXPECT_TRUE(device) << error;
  return device;
}

TEST(DeviceTest, HostIsSelectedByItsKind) {
  std::unique_ptr<Device> device = hostDevice();
  ASSERT_TRUE(device);
  EXPECT_STREQ(device->name(), "host");
  EXPECT_EQ(device->kind(), uint32_t(TFM_DEVICE_HOST));
  EXPECT_EQ(device->stream(), nullptr);
}

TEST(DeviceTest, CudaWithoutCudaSupportIsAnError) {
  std::string error;
  EXPECT_FALSE(createDevice(TFM_DEVICE_CUDA, error));
  EXPECT_NE(error.find("compiled for a CUDA device"), std::string::npos)
      << error;
  EXPECT_NE(error.find("built without CUDA support"), std::string::npos)
      << error;
}

TEST(DeviceTest, UnknownDeviceIsAnError) {
  std::string error;
  EXPECT_FALSE(createDevice(7, error));
  EXPECT_NE(error.find("compiled for device 7, which this runtime does not "
                       "know"),
            std::string::npos)
      << error;
}

TEST(DeviceTest, HostAllocatesAlignedMemoryAndCopies) {
  std::unique_ptr<Device> device = hostDevice();
  ASSERT_TRUE(device);
  std::string error;
  void *buffer = device->allocate(100, 64, BufferUse::Scratch, error);
  ASSERT_TRUE(buffer) << error;
  DeviceBuffer owned(*device, buffer);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % 64, 0u);
  std::vector<uint8_t> in(100), out(100, 0xff);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7);
  ASSERT_TRUE(device->copyToDevice(buffer, in.data(), in.size(), error));
  ASSERT_TRUE(device->copyToHost(out.data(), buffer, out.size(), error));
  EXPECT_EQ(in, out);
  ASSERT_TRUE(device->zero(buffer, 100, error));
  ASSERT_TRUE(device->copyToHost(out.data(), buffer, out.size(), error));
  EXPECT_EQ(out, std::vector<uint8_t>(100, 0));
  EXPECT_TRUE(device->synchronize(error));
}

TEST(DeviceTest, HostAllocatesEmptyBuffersAndRejectsOddAlignments) {
  std::unique_ptr<Device> device = hostDevice();
  ASSERT_TRUE(device);
  std::string error;
  DeviceBuffer empty(*device,
                     device->allocate(0, 64, BufferUse::Scratch, error));
  EXPECT_TRUE(empty) << error;
  EXPECT_EQ(device->allocate(64, 48, BufferUse::Scratch, error), nullptr);
  EXPECT_NE(error.find("not a power of two"), std::string::npos) << error;
}

TEST(DeviceTest, HostPutsALargeCacheOnHugePages) {
  std::unique_ptr<Device> device = hostDevice();
  ASSERT_TRUE(device);
  std::string error;
  uint64_t bytes = 3ull << 20;
  DeviceBuffer cache(*device,
                     device->allocate(bytes, 64, BufferUse::Cache, error));
  ASSERT_TRUE(cache) << error;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(cache.get()) % (2ull << 20), 0u);
}

TEST(DeviceTest, HostReadsTheWeightsWhereTheyAreMapped) {
  std::unique_ptr<Device> device = hostDevice();
  ASSERT_TRUE(device);
  alignas(64) static const uint8_t blob[128] = {1, 2, 3};
  DeviceBuffer owner;
  std::string error;
  EXPECT_EQ(device->loadWeights(blob, sizeof(blob), 64, owner, error), blob)
      << error;
  EXPECT_FALSE(owner) << "the host copies nothing";
  EXPECT_EQ(device->loadWeights(blob + 1, 64, 64, owner, error), nullptr);
  EXPECT_NE(error.find("not aligned to the 64 bytes"), std::string::npos)
      << error;
}

} // namespace
