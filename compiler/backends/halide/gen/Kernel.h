//===- Kernel.h - One kernel kind as Halide Funcs and schedules -*- C++ -*-===//
//
// Each kind (Projection.cpp, Attention.cpp, ...) defines its algorithm as
// Halide Funcs over typed inputs in the constructor, and its hand schedules
// per target apart from it, as Halide's apps (hannk) do: the CPU schedule
// (AVX2 / AVX-512: tile, vectorize, unroll, parallel, compute_at, rfactor)
// and the GPU schedule (CUDA; the same loops run on OpenCL, where
// `gpu_lanes` is not available). The autoschedulers replace both.
//
// Buffers are Halide's view of tfmc's row-major tensors: dimension 0 is the
// innermost, so a `[rows, features]` tensor is `(features, rows)`. Every
// dimension's min (0), extent and stride are fixed at compile time.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_HALIDE_GEN_KERNEL_H
#define TFMC_COMPILER_BACKENDS_HALIDE_GEN_KERNEL_H

#include "compiler/backends/halide/KernelDescription.h"

#include "Halide.h"

#include <memory>
#include <string>
#include <vector>

namespace tfmc::halide {

/// What the hand schedules read from the target.
struct ScheduleTarget {
  Halide::Target target;
  /// f32 lanes of one vector register (CPU), 4 without AVX.
  int vectorLanes = 4;
  /// Vector registers (16 or 32): half of them hold accumulators.
  int registers = 16;
  bool gpu = false;
  /// CUDA's warp shuffles (`gpu_lanes`); OpenCL has none in Halide 14.
  bool warpLanes = false;
  /// f16 values decode through Halide's conversion (CUDA's cvt), else with
  /// integer operations (Math.h, halfToFloat).
  bool nativeHalf = true;
  int threads = 2;
};

ScheduleTarget describeScheduleTarget(const Halide::Target &target,
                                      const TargetDescription &description);

class Kernel {
public:
  virtual ~Kernel();

  /// The arguments of the C function in order: inputs, then scalars; the
  /// outputs follow them.
  const std::vector<Halide::Argument> &arguments() const { return args_; }
  const std::vector<Halide::Func> &outputs() const { return outputs_; }

  virtual void scheduleCpu(const ScheduleTarget &target) = 0;
  virtual void scheduleGpu(const ScheduleTarget &target) = 0;

protected:
  /// An input tensor of row-major `shape` (outermost first), dense, with
  /// its bounds fixed and estimated for the autoschedulers.
  Halide::ImageParam input(Halide::Type type, const std::string &name,
                           const std::vector<int64_t> &shape);
  /// A scalar int32 argument in [min, max] (checked at run time).
  Halide::Param<int32_t> scalar(const std::string &name, int32_t min,
                                int32_t max, int32_t estimate);
  /// Marks `func` as an output of row-major `shape`.
  void output(Halide::Func func, const std::vector<int64_t> &shape);

private:
  std::vector<Halide::Argument> args_;
  std::vector<Halide::Func> outputs_;
};

std::unique_ptr<Kernel> createProjection(const KernelDescription &kernel,
                                         const ScheduleTarget &target);
std::unique_ptr<Kernel> createLmHead(const KernelDescription &kernel,
                                     const ScheduleTarget &target);
std::unique_ptr<Kernel> createAttention(const KernelDescription &kernel,
                                        const ScheduleTarget &target);
std::unique_ptr<Kernel> createNorm(const KernelDescription &kernel,
                                   const ScheduleTarget &target);
std::unique_ptr<Kernel> createPositional(const KernelDescription &kernel,
                                         const ScheduleTarget &target);
std::unique_ptr<Kernel> createElementwise(const KernelDescription &kernel,
                                          const ScheduleTarget &target);
std::unique_ptr<Kernel> createMoeRouting(const KernelDescription &kernel,
                                         const ScheduleTarget &target);
std::unique_ptr<Kernel> createMoeExperts(const KernelDescription &kernel,
                                         const ScheduleTarget &target);

/// The kernel of `kernel`'s kind.
std::unique_ptr<Kernel> createKernel(const KernelDescription &kernel,
                                     const ScheduleTarget &target);

/// The schedule of an elementwise `out(inner, ..., row)` over `elements`
/// values in all: vectors along `inner`, threads over rows when there is
/// enough work to pay for waking them.
void scheduleElementwiseCpu(Halide::Func out, Halide::Var inner,
                            Halide::Var row, int64_t innerExtent,
                            int64_t elements, const ScheduleTarget &target);
/// The same on a GPU: 64 threads along `inner`, a block per 64 values of
/// each row.
void scheduleElementwiseGpu(Halide::Func out, Halide::Var inner,
                            Halide::Var row);

/// The largest of `preferred`, `preferred / 2`, ... that divides `extent`
/// (at least 1): static shapes let every split be exact.
int dividingFactor(int64_t extent, int preferred);

} // namespace tfmc::halide

#endif // TFMC_COMPILER_BACKENDS_HALIDE_GEN_KERNEL_H
