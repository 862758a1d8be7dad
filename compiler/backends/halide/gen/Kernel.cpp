//===- Kernel.cpp - One kernel kind as Halide Funcs and schedules ---------===//
#include "compiler/backends/halide/gen/Kernel.h"

using namespace Halide;
using namespace tfmc::halide;

Kernel::~Kernel() = default;

ScheduleTarget
tfmc::halide::describeScheduleTarget(const Target &target,
                                     const TargetDescription &description) {
  ScheduleTarget out;
  out.target = target;
  out.threads = static_cast<int>(description.threads);
  out.gpu = target.has_gpu_feature();
  out.warpLanes = target.has_feature(Target::CUDA);
  // Only PTX converts f16 natively through Halide 14: on x86 it emulates
  // the conversion (no F16C), OpenCL devices may lack cl_khr_fp16.
  out.nativeHalf = target.has_feature(Target::CUDA);
  if (target.has_feature(Target::AVX512)) {
    out.vectorLanes = 16;
    out.registers = 32;
  } else if (target.has_feature(Target::AVX) ||
             target.has_feature(Target::AVX2)) {
    out.vectorLanes = 8;
  }
  return out;
}

ImageParam Kernel::input(Type type, const std::string &name,
                         const std::vector<int64_t> &shape) {
  ImageParam param(type, static_cast<int>(shape.size()), name);
  int64_t stride = 1;
  // Halide's dimension 0 is the row-major shape's last.
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t extent = shape[shape.size() - 1 - d];
    param.dim(static_cast<int>(d))
        .set_bounds(0, static_cast<int>(extent))
        .set_stride(static_cast<int>(stride))
        .set_estimate(0, static_cast<int>(extent));
    stride *= extent;
  }
  args_.push_back(param);
  return param;
}

Param<int32_t> Kernel::scalar(const std::string &name, int32_t min, int32_t max,
                              int32_t estimate) {
  Param<int32_t> param(name, estimate, min, max);
  param.set_estimate(estimate);
  args_.push_back(param);
  return param;
}

void Kernel::output(Func func, const std::vector<int64_t> &shape) {
  OutputImageParam buffer = func.output_buffer();
  Region estimates;
  int64_t stride = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t extent = shape[shape.size() - 1 - d];
    buffer.dim(static_cast<int>(d))
        .set_bounds(0, static_cast<int>(extent))
        .set_stride(static_cast<int>(stride));
    estimates.push_back(Range(0, static_cast<int>(extent)));
    stride *= extent;
  }
  func.set_estimates(estimates);
  outputs_.push_back(func);
}

void tfmc::halide::scheduleElementwiseCpu(Func out, Var inner, Var row,
                                          int64_t innerExtent, int64_t elements,
                                          const ScheduleTarget &target) {
  if (innerExtent >= target.vectorLanes)
    out.vectorize(inner, target.vectorLanes, TailStrategy::ShiftInwards);
  // Waking a thread costs about as much as a few thousand additions.
  if (elements >= (int64_t(1) << 16))
    out.parallel(row);
}

void tfmc::halide::scheduleElementwiseGpu(Func out, Var inner, Var row) {
  Var block("block"), thread("thread");
  out.split(inner, block, thread, 64, TailStrategy::GuardWithIf)
      .reorder(thread, block, row)
      .gpu_blocks(block, row)
      .gpu_threads(thread);
}

int tfmc::halide::dividingFactor(int64_t extent, int preferred) {
  for (int factor = preferred; factor > 1; factor /= 2)
    if (extent % factor == 0)
      return factor;
  return 1;
}

std::unique_ptr<Kernel>
tfmc::halide::createKernel(const KernelDescription &kernel,
                           const ScheduleTarget &target) {
  switch (kernel.kind()) {
  case KernelKind::Projection:
    return createProjection(kernel, target);
  case KernelKind::Attention:
    return createAttention(kernel, target);
  case KernelKind::Norm:
    return createNorm(kernel, target);
  case KernelKind::Positional:
    return createPositional(kernel, target);
  case KernelKind::Elementwise:
    return createElementwise(kernel, target);
  case KernelKind::MoeRouting:
    return createMoeRouting(kernel, target);
  case KernelKind::LmHead:
    return createLmHead(kernel, target);
  case KernelKind::MoeExperts:
    return createMoeExperts(kernel, target);
  }
  return nullptr;
}
