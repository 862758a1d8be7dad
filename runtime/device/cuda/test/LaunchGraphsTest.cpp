//===- LaunchGraphsTest.cpp - Kernel launches replayed as CUDA graphs -----===//
//
// On a stream that records its launches (LaunchGraphs.h), against the fake
// driver with graphs: the launches of one step become one graph at the
// next copy, the next step with the same kernels updates only the nodes
// whose arguments changed, and whatever the driver or the environment
// does not allow falls back to launching each kernel.
//
//===----------------------------------------------------------------------===//
#include "runtime/device/cuda/LaunchGraphs.h"
#include "runtime/device/cuda/CudaDevice.h"
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

class LaunchGraphsTest : public FakeDriver {
protected:
  void SetUp() override {
    FakeDriver::SetUp();
    api = withFakeGraphs(api);
    char image[] = "cubin";
    module = mgpuModuleLoad(image, sizeof(image));
    kernel = mgpuModuleGetFunction(module, "kernel");
  }
  void TearDown() override {
    disableLaunchGraphs(fakeStream);
    mgpuModuleUnload(module);
    FakeDriver::TearDown();
  }

  /// A decode step's shape: three kernels, the second reading the position
  /// (its i64 argument) and spreading over `grid` blocks, then the copy of
  /// the logits.
  void step(int64_t position, unsigned grid = 4) {
    void *buffer = reinterpret_cast<void *>(0x7000);
    int64_t zero = 0;
    void *constant[] = {&buffer, &zero};
    void *positional[] = {&buffer, &position};
    mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, fakeStream, constant,
                     nullptr, 2);
    mgpuLaunchKernel(kernel, grid, 1, 1, 32, 1, 1, 0, fakeStream, positional,
                     nullptr, 2);
    mgpuLaunchKernel(kernel, 2, 1, 1, 64, 1, 1, 0, fakeStream, constant,
                     nullptr, 2);
    mgpuMemcpy(buffer, buffer, 64, fakeStream);
  }

  void *module = nullptr;
  void *kernel = nullptr;
};

TEST_F(LaunchGraphsTest, AStepRunsAsOneGraphBeforeTheCopy) {
  enableLaunchGraphs(api, fakeStream);
  step(5);
  EXPECT_TRUE(calls.launches.empty());
  EXPECT_EQ(calls.graphsCreated, 1);
  ASSERT_EQ(calls.nodes.size(), 3u);
  EXPECT_EQ(calls.nodes[0].dependencies, 0u);
  EXPECT_EQ(calls.nodes[1].dependencies, 1u);
  EXPECT_EQ(calls.nodes[1].grid[0], 4u);
  EXPECT_EQ(calls.nodes[1].secondArgument, 5);
  EXPECT_EQ(calls.instantiations, 1);
  EXPECT_EQ(calls.order, (std::vector<std::string>{"graph", "copy"}));
  EXPECT_EQ(firstError(), "");
}

TEST_F(LaunchGraphsTest, TheNextStepUpdatesOnlyWhatChanged) {
  enableLaunchGraphs(api, fakeStream);
  step(5);
  step(6);
  step(7, 8);
  EXPECT_EQ(calls.instantiations, 1);
  EXPECT_EQ(calls.graphLaunches, 3);
  ASSERT_EQ(calls.updates.size(), 2u);
  EXPECT_EQ(calls.updates[0].node, 2u);
  EXPECT_EQ(calls.updates[0].secondArgument, 6);
  EXPECT_EQ(calls.updates[1].secondArgument, 7);
  EXPECT_EQ(calls.updates[1].grid[0], 8u);
  LaunchGraphs *graphs = launchGraphs(fakeStream);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->instantiations(), 1u);
  EXPECT_EQ(graphs->nodeUpdates(), 2u);
  EXPECT_TRUE(calls.launches.empty());
}

TEST_F(LaunchGraphsTest, OtherKernelsGetAGraphOfTheirOwn) {
  enableLaunchGraphs(api, fakeStream);
  step(5);
  // A prefill's shape: one kernel.
  void *buffer = nullptr;
  int64_t count = 9;
  void *params[] = {&buffer, &count};
  mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, fakeStream, params, nullptr,
                   2);
  mgpuMemcpy(buffer, buffer, 64, fakeStream);
  // Back to the step: its graph was kept.
  step(6);
  EXPECT_EQ(calls.instantiations, 2);
  EXPECT_EQ(calls.graphLaunches, 3);
  EXPECT_EQ(calls.updates.size(), 1u);
}

TEST_F(LaunchGraphsTest, AnUpdateTheDriverRefusesBuildsAnew) {
  enableLaunchGraphs(api, fakeStream);
  step(5);
  calls.updateResult = 1;
  step(6);
  EXPECT_EQ(calls.instantiations, 2);
  EXPECT_EQ(calls.execsDestroyed, 1);
  EXPECT_EQ(calls.graphLaunches, 2);
  EXPECT_EQ(calls.nodes.back().secondArgument, 0);
  EXPECT_EQ(calls.nodes[calls.nodes.size() - 2].secondArgument, 6);
  EXPECT_EQ(firstError(), "");
}

TEST_F(LaunchGraphsTest, DestroyingTheStreamRunsWhatIsRecorded) {
  enableLaunchGraphs(api, fakeStream);
  void *buffer = nullptr;
  int64_t zero = 0;
  void *params[] = {&buffer, &zero};
  mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, fakeStream, params, nullptr,
                   2);
  EXPECT_EQ(calls.graphLaunches, 0);
  mgpuStreamDestroy(fakeStream);
  EXPECT_EQ(calls.graphLaunches, 1);
  EXPECT_EQ(launchGraphs(fakeStream), nullptr);
}

TEST_F(LaunchGraphsTest, KernelsWhoseArgumentsCannotBeSizedLaunchDirectly) {
  api.cuFuncGetParamInfo = [](CUfunction, size_t, size_t *,
                              size_t *) -> CUresult { return 1; };
  enableLaunchGraphs(api, fakeStream);
  step(5);
  EXPECT_EQ(calls.launches.size(), 3u);
  EXPECT_EQ(calls.graphLaunches, 0);
  EXPECT_EQ(calls.order,
            (std::vector<std::string>{"kernel", "kernel", "kernel", "copy"}));
}

TEST_F(LaunchGraphsTest, ADriverWithoutGraphsLaunchesEachKernel) {
  api.cuGraphLaunch = nullptr;
  enableLaunchGraphs(api, fakeStream);
  EXPECT_EQ(launchGraphs(fakeStream), nullptr);
  step(5);
  EXPECT_EQ(calls.launches.size(), 3u);
}

TEST_F(LaunchGraphsTest, TheEnvironmentCanTurnGraphsOff) {
  for (const char *variable :
       {"TFM_CUDA_GRAPHS=0", "TFM_CUDA_LAUNCH_BLOCKING=1"}) {
    std::string assignment = variable;
    size_t equals = assignment.find('=');
    std::string name = assignment.substr(0, equals);
    setenv(name.c_str(), assignment.c_str() + equals + 1, 1);
    enableLaunchGraphs(api, fakeStream);
    unsetenv(name.c_str());
    EXPECT_EQ(launchGraphs(fakeStream), nullptr) << variable;
  }
}

TEST_F(LaunchGraphsTest, ACudaDeviceRecordsAndFlushesBeforeItsCopies) {
  std::string error;
  auto device = tfm::rt::CudaDevice::create(error);
  ASSERT_TRUE(device) << error;
  ASSERT_NE(launchGraphs(fakeStream), nullptr);
  void *buffer = nullptr;
  int64_t zero = 0;
  void *params[] = {&buffer, &zero};
  mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, fakeStream, params, nullptr,
                   2);
  char host[4];
  ASSERT_TRUE(device->copyToHost(host, reinterpret_cast<void *>(0x5000),
                                 sizeof host, error))
      << error;
  EXPECT_EQ(calls.order, (std::vector<std::string>{"graph", "copy", "sync"}));
  device.reset();
  EXPECT_EQ(launchGraphs(fakeStream), nullptr);
}

} // namespace
