//===- LaunchGraphs.cpp - A stream's kernel launches as CUDA graphs -------===//
#include "runtime/device/cuda/LaunchGraphs.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

namespace tfm::cuda {

namespace {

/// How many different launch sequences a stream keeps graphs of: a model's
/// prefill chunk, its last (shorter) chunk and its decode step, with room.
constexpr size_t kKeptGraphs = 4;

bool environmentAllows() {
  const char *graphs = std::getenv("TFM_CUDA_GRAPHS");
  if (graphs && std::strcmp(graphs, "0") == 0)
    return false;
  // A launch that waits for its kernel names the kernel that faults; a
  // graph would not.
  const char *blocking = std::getenv("TFM_CUDA_LAUNCH_BLOCKING");
  return !(blocking && *blocking && std::strcmp(blocking, "0") != 0);
}

struct Registry {
  std::mutex mutex;
  std::unordered_map<CUstream, std::unique_ptr<LaunchGraphs>> streams;
};

Registry &registry() {
  // Never destroyed, as the kernel table (MgpuWrappers.cpp).
  static Registry *instance = new Registry;
  return *instance;
}

void fillNode(KernelNodeParams &node, const RecordedLaunch &launch,
              std::vector<void *> &pointers) {
  pointers.clear();
  for (size_t offset : launch.offsets)
    pointers.push_back(const_cast<char *>(launch.arguments.data()) + offset);
  node = KernelNodeParams{};
  node.function = launch.function;
  std::memcpy(node.grid, launch.grid, sizeof node.grid);
  std::memcpy(node.block, launch.block, sizeof node.block);
  node.sharedBytes = launch.sharedBytes;
  node.params = pointers.data();
}

} // namespace

LaunchGraphs::~LaunchGraphs() {
  for (Instance &instance : instances_)
    destroy(instance);
}

const std::vector<size_t> &LaunchGraphs::argumentSizes(CUfunction function,
                                                       size_t count) {
  auto [entry, inserted] = sizes_.try_emplace(function);
  std::vector<size_t> &sizes = entry->second;
  if (inserted) {
    for (size_t index = 0; index < count; ++index) {
      size_t offset = 0, bytes = 0;
      if (api_.cuFuncGetParamInfo(function, index, &offset, &bytes) !=
          CUDA_SUCCESS) {
        sizes.clear();
        break;
      }
      sizes.push_back(bytes);
    }
  }
  return sizes;
}

bool LaunchGraphs::record(CUfunction function, const unsigned grid[3],
                          const unsigned block[3], unsigned sharedBytes,
                          void **params, size_t count) {
  const std::vector<size_t> &sizes = argumentSizes(function, count);
  if (sizes.size() != count)
    return false;
  RecordedLaunch launch;
  launch.function = function;
  std::memcpy(launch.grid, grid, sizeof launch.grid);
  std::memcpy(launch.block, block, sizeof launch.block);
  launch.sharedBytes = sharedBytes;
  for (size_t index = 0; index < count; ++index) {
    // Each argument 8-byte aligned in the copy, as the driver reads them.
    launch.arguments.resize((launch.arguments.size() + 7) & ~size_t(7));
    launch.offsets.push_back(launch.arguments.size());
    launch.arguments.append(static_cast<const char *>(params[index]),
                            sizes[index]);
  }
  pending_.push_back(std::move(launch));
  return true;
}

void LaunchGraphs::destroy(Instance &instance) {
  if (instance.exec)
    api_.cuGraphExecDestroy(instance.exec);
  if (instance.graph)
    api_.cuGraphDestroy(instance.graph);
  instance.exec = nullptr;
  instance.graph = nullptr;
}

bool LaunchGraphs::build(Instance &instance) {
  instance.launches = pending_;
  instance.nodes.assign(pending_.size(), nullptr);
  if (!check(api_.cuGraphCreate(&instance.graph, 0), "cuGraphCreate"))
    return false;
  std::vector<void *> pointers;
  for (size_t i = 0; i < pending_.size(); ++i) {
    KernelNodeParams node;
    fillNode(node, pending_[i], pointers);
    // A chain: each kernel after the one launched before it, as on the
    // stream.
    if (!check(api_.cuGraphAddKernelNode(&instance.nodes[i], instance.graph,
                                         i ? &instance.nodes[i - 1] : nullptr,
                                         i ? 1 : 0, &node),
               "cuGraphAddKernelNode"))
      return false;
  }
  ++instantiations_;
  return check(
      api_.cuGraphInstantiateWithFlags(&instance.exec, instance.graph, 0),
      "cuGraphInstantiateWithFlags");
}

bool LaunchGraphs::update(Instance &instance) {
  std::vector<void *> pointers;
  for (size_t i = 0; i < pending_.size(); ++i) {
    RecordedLaunch &kept = instance.launches[i];
    RecordedLaunch &launch = pending_[i];
    if (std::memcmp(kept.grid, launch.grid, sizeof kept.grid) == 0 &&
        std::memcmp(kept.block, launch.block, sizeof kept.block) == 0 &&
        kept.sharedBytes == launch.sharedBytes &&
        kept.arguments == launch.arguments)
      continue;
    KernelNodeParams node;
    fillNode(node, launch, pointers);
    // A change the graph cannot take (the driver's to judge) is built anew.
    if (api_.cuGraphExecKernelNodeSetParams(instance.exec, instance.nodes[i],
                                            &node) != CUDA_SUCCESS)
      return false;
    ++nodeUpdates_;
    kept = std::move(launch);
  }
  return true;
}

LaunchGraphs::Instance *LaunchGraphs::instanceForPending() {
  auto matches = [&](const Instance &instance) {
    if (instance.launches.size() != pending_.size())
      return false;
    for (size_t i = 0; i < pending_.size(); ++i)
      if (!instance.launches[i].sameKernel(pending_[i]))
        return false;
    return true;
  };
  for (size_t i = 0; i < instances_.size(); ++i) {
    if (!matches(instances_[i]))
      continue;
    // Most recently used last.
    Instance found = std::move(instances_[i]);
    instances_.erase(instances_.begin() + i);
    instances_.push_back(std::move(found));
    Instance &instance = instances_.back();
    if (update(instance))
      return &instance;
    destroy(instance);
    return build(instance) ? &instance : nullptr;
  }
  if (instances_.size() == kKeptGraphs) {
    destroy(instances_.front());
    instances_.erase(instances_.begin());
  }
  instances_.emplace_back();
  Instance &instance = instances_.back();
  if (build(instance))
    return &instance;
  destroy(instance);
  instances_.pop_back();
  return nullptr;
}

void LaunchGraphs::flush(CUstream stream) {
  if (pending_.empty())
    return;
  if (Instance *instance = instanceForPending())
    check(api_.cuGraphLaunch(instance->exec, stream), "cuGraphLaunch");
  pending_.clear();
}

void enableLaunchGraphs(const DriverApi &api, CUstream stream) {
  if (!api.hasGraphs() || !environmentAllows())
    return;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.streams[stream] = std::make_unique<LaunchGraphs>(api);
}

void disableLaunchGraphs(CUstream stream) {
  std::unique_ptr<LaunchGraphs> graphs;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto found = r.streams.find(stream);
    if (found == r.streams.end())
      return;
    graphs = std::move(found->second);
    r.streams.erase(found);
  }
  graphs->flush(stream);
}

LaunchGraphs *launchGraphs(CUstream stream) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto found = r.streams.find(stream);
  return found == r.streams.end() ? nullptr : found->second.get();
}

void flushLaunches(CUstream stream) {
  if (LaunchGraphs *graphs = launchGraphs(stream))
    graphs->flush(stream);
}

} // namespace tfm::cuda
