//===- LaunchGraphs.h - A stream's kernel launches as CUDA graphs -*- C++
//-*-===//
//
// A decode step of a small model is hundreds of small kernels, and
// launching them one by one costs more than running them (docs/cuda.md).
// On a stream that batches (enableLaunchGraphs: each CudaDevice's), the
// launches the host code makes are recorded instead, arguments copied,
// until the next other operation on the stream (a copy, a memset, a
// synchronisation, an event): then they run as one CUDA graph, a chain of
// kernel nodes in launch order. The graph is instantiated once: the next
// time the same kernels are recorded (the next decode step), only the nodes
// whose arguments or grid changed (the position) are updated before it is
// launched again. A stream keeps the graphs of a few different sequences
// (prefill chunks and decode steps alternate).
//
// Without the driver's graph functions, with TFM_CUDA_GRAPHS=0 or with
// TFM_CUDA_LAUNCH_BLOCKING, kernels are launched one by one as before.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_CUDA_LAUNCHGRAPHS_H
#define TFMC_RUNTIME_DEVICE_CUDA_LAUNCHGRAPHS_H

#include "runtime/device/cuda/CudaDriver.h"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfm::cuda {

/// One recorded kernel launch: a kernel node's contents.
struct RecordedLaunch {
  CUfunction function = nullptr;
  unsigned grid[3] = {}, block[3] = {}, sharedBytes = 0;
  /// Each argument's bytes at its offset in `arguments`.
  std::vector<size_t> offsets;
  std::string arguments;

  bool sameKernel(const RecordedLaunch &other) const {
    return function == other.function && offsets == other.offsets &&
           arguments.size() == other.arguments.size();
  }
};

/// The launches of one stream, recorded and run as graphs.
class LaunchGraphs {
public:
  explicit LaunchGraphs(const DriverApi &api) : api_(api) {}
  LaunchGraphs(const LaunchGraphs &) = delete;
  LaunchGraphs &operator=(const LaunchGraphs &) = delete;
  ~LaunchGraphs();

  /// Records a launch of `function` with `count` arguments at `params`.
  /// False when it cannot be recorded (the driver cannot say the
  /// arguments' sizes): the caller flushes and launches it itself.
  bool record(CUfunction function, const unsigned grid[3],
              const unsigned block[3], unsigned sharedBytes, void **params,
              size_t count);
  /// Runs the launches recorded since the last flush on `stream`, as one
  /// graph; errors are recorded (tfm::cuda::check). Nothing when none.
  void flush(CUstream stream);

  /// Graphs instantiated and kernel nodes updated so far (for tests and
  /// docs: a decode step should update a few nodes, not instantiate).
  size_t instantiations() const { return instantiations_; }
  size_t nodeUpdates() const { return nodeUpdates_; }

private:
  struct Instance {
    std::vector<RecordedLaunch> launches;
    std::vector<CUgraphNode> nodes;
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
  };

  /// The instance for `pending_`: a kept one whose kernels match, updated,
  /// or a new one; null after an error.
  Instance *instanceForPending();
  bool build(Instance &instance);
  bool update(Instance &instance);
  void destroy(Instance &instance);
  /// The byte sizes of `function`'s first `count` arguments, or empty.
  const std::vector<size_t> &argumentSizes(CUfunction function, size_t count);

  const DriverApi &api_;
  std::vector<RecordedLaunch> pending_;
  /// Most recently used last.
  std::vector<Instance> instances_;
  std::unordered_map<CUfunction, std::vector<size_t>> sizes_;
  size_t instantiations_ = 0, nodeUpdates_ = 0;
};

/// Makes `stream` record its launches (LaunchGraphs) where the driver has
/// graphs and the environment allows; disableLaunchGraphs flushes and
/// forgets them, before the stream is destroyed.
void enableLaunchGraphs(const DriverApi &api, CUstream stream);
void disableLaunchGraphs(CUstream stream);
/// The stream's graphs, or null when its launches are not recorded.
LaunchGraphs *launchGraphs(CUstream stream);
/// Runs what `stream` recorded, if anything; before any other operation on
/// the stream.
void flushLaunches(CUstream stream);

} // namespace tfm::cuda

#endif // TFMC_RUNTIME_DEVICE_CUDA_LAUNCHGRAPHS_H
