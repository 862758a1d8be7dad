//===- Generate.cpp - Descriptions -> objects, headers, statements --------===//
#include "compiler/backends/halide/gen/Generate.h"

#include "compiler/backends/halide/gen/Kernel.h"

#include <algorithm>
#include <fstream>
#include <set>

using namespace Halide;
using namespace tfmc::halide;

namespace {

/// Halide 14's registered name of each autoscheduler and its plugin.
struct Autoscheduler {
  const char *name;
  const char *plugin;
};

Autoscheduler autoscheduler(Scheduler scheduler) {
  switch (scheduler) {
  case Scheduler::Adams2019:
    return {"Adams2019", "libautoschedule_adams2019.so"};
  case Scheduler::Mullapudi2016:
    return {"Mullapudi2016", "libautoschedule_mullapudi2016.so"};
  case Scheduler::Li2018:
    return {"Li2018", "libautoschedule_li2018.so"};
  case Scheduler::Hand:
    break;
  }
  return {nullptr, nullptr};
}

bool loadAutoscheduler(Scheduler scheduler, const std::string &dir,
                       std::string &error) {
  static std::set<Scheduler> loaded;
  if (loaded.count(scheduler))
    return true;
  std::string path = dir + "/" + autoscheduler(scheduler).plugin;
  if (!std::ifstream(path)) {
    error = std::string("the ") + schedulerName(scheduler) +
            " autoscheduler plugin is missing: " + path +
            " (Debian's libhalide14-0-dev installs it)";
    return false;
  }
  load_plugin(path);
  loaded.insert(scheduler);
  return true;
}

/// The device code Halide embeds for a pipeline's GPU loops (PTX text for
/// CUDA, OpenCL C for OpenCL), or empty when it has none.
std::string deviceSource(const Module &module) {
  for (const Buffer<void> &buffer : module.buffers())
    if (buffer.name().find("gpu_source_kernels") != std::string::npos) {
      const char *bytes = static_cast<const char *>(buffer.data());
      std::string text(bytes, bytes + buffer.size_in_bytes());
      while (!text.empty() && text.back() == '\0')
        text.pop_back();
      return text;
    }
  return {};
}

} // namespace

Target tfmc::halide::kernelTarget(const TargetDescription &description) {
  std::string spelled = "x86-64-linux";
  for (const std::string &feature : description.features)
    spelled += "-" + feature;
  if (description.device == Device::Cuda)
    spelled +=
        "-cuda-cuda_capability_" + std::to_string(description.cudaCapability);
  else if (description.device == Device::OpenCL)
    spelled += "-opencl";
  return Target(spelled).with_feature(Target::NoRuntime);
}

Target
tfmc::halide::runtimeTarget(const std::vector<KernelDescription> &kernels) {
  static const Target::Feature kDevice[] = {
      Target::CUDA,
      Target::OpenCL,
      Target::CUDACapability30,
      Target::CUDACapability32,
      Target::CUDACapability35,
      Target::CUDACapability50,
      Target::CUDACapability61,
      Target::CUDACapability70,
      Target::CUDACapability75,
      Target::CUDACapability80,
      Target::CUDACapability86,
  };
  Target runtime(Target::Linux, Target::X86, 64);
  bool first = true;
  for (const KernelDescription &kernel : kernels) {
    Target target =
        kernelTarget(kernel.target).without_feature(Target::NoRuntime);
    if (first) {
      runtime = target;
      first = false;
      continue;
    }
    for (int f = 0; f < Target::FeatureEnd; ++f) {
      auto feature = static_cast<Target::Feature>(f);
      bool device = std::find(std::begin(kDevice), std::end(kDevice),
                              feature) != std::end(kDevice);
      if (device && target.has_feature(feature))
        runtime.set_feature(feature);
      else if (!device && !target.has_feature(feature))
        runtime.set_feature(feature, false);
    }
  }
  return runtime;
}

bool tfmc::halide::generateKernel(const KernelDescription &kernel,
                                  const GenerateOptions &options,
                                  std::string &error) {
  try {
    Target target = kernelTarget(kernel.target);
    ScheduleTarget scheduleTarget =
        describeScheduleTarget(target, kernel.target);
    std::unique_ptr<Kernel> built = createKernel(kernel, scheduleTarget);
    Pipeline pipeline(built->outputs());
    std::string schedule;
    if (kernel.scheduler == Scheduler::Hand) {
      if (scheduleTarget.gpu)
        built->scheduleGpu(scheduleTarget);
      else
        built->scheduleCpu(scheduleTarget);
    } else {
      if (!loadAutoscheduler(kernel.scheduler, options.pluginDir, error)) {
        error = "kernel '" + kernel.name + "': " + error;
        return false;
      }
      MachineParams machine(static_cast<int>(kernel.target.threads),
                            static_cast<uint64_t>(kernel.target.cacheBytes),
                            40);
      AutoSchedulerResults results = pipeline.auto_schedule(
          autoscheduler(kernel.scheduler).name, target, machine);
      schedule = results.schedule_source;
    }
    Module module =
        pipeline.compile_to_module(built->arguments(), kernel.name, target);
    const std::string base = options.outputDir + "/" + kernel.name;
    std::map<OutputFileType, std::string> outputs = {
        {OutputFileType::c_header, base + ".h"}};
    if (options.objects)
      outputs[OutputFileType::object] = base + ".o";
    else
      outputs[OutputFileType::static_library] = base + ".a";
    if (options.stmt)
      outputs[OutputFileType::stmt] = base + ".stmt";
    module.compile(outputs);
    if (!schedule.empty())
      std::ofstream(base + ".schedule.h") << schedule;
    if (options.deviceSource && scheduleTarget.gpu) {
      std::string source = deviceSource(module);
      if (source.empty()) {
        error = "kernel '" + kernel.name + "' has no device code";
        return false;
      }
      const char *suffix =
          kernel.target.device == Device::Cuda ? ".ptx" : ".cl";
      std::ofstream(base + suffix, std::ios::binary) << source;
    }
    return true;
  } catch (const Halide::Error &e) {
    error = "kernel '" + kernel.name + "': Halide: " + e.what();
    while (!error.empty() && (error.back() == '\n' || error.back() == ' '))
      error.pop_back();
    return false;
  }
}

bool tfmc::halide::generateRuntime(
    const std::vector<KernelDescription> &kernels, const std::string &path,
    std::string &error) {
  try {
    compile_standalone_runtime(path, runtimeTarget(kernels));
    return true;
  } catch (const Halide::Error &e) {
    error = std::string("the runtime: Halide: ") + e.what();
    return false;
  }
}
