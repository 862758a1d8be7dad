//===- Norm.cpp - RMSNorm and LayerNorm over each row ---------------------===//
//
// C ABI: input [rows, features], weight [features], [bias [features]]
// (layer_norm with bias) -> output [rows, features]. With weight_groups G
// > 1, weight and bias are [G, features] and row m takes vector m % G.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/Kernel.h"
#include "compiler/backends/halide/gen/MatVec.h"
#include "compiler/backends/halide/gen/Math.h"

using namespace Halide;
using namespace tfmc::halide;

namespace {

class Norm : public Kernel {
public:
  explicit Norm(const NormParams &p) : params_(p) {
    ImageParam in = input(Float(32), "input", {p.rows, p.features});
    Func source("source"), scale("scale"), shift("shift");
    source(k, m) = in(k, m);
    if (p.weightGroups == 1) {
      ImageParam weight = input(Float(32), "weight", {p.features});
      scale(k) = weight(k);
      if (p.norm.bias) {
        ImageParam bias = input(Float(32), "bias", {p.features});
        shift(k) = bias(k);
      } else {
        shift(k) = 0.0f;
      }
      funcs_ = defineNorm(p.norm, source, p.features, scale, shift);
      output_(k, m) = funcs_.normalized(k, m);
    } else {
      // Each row's own weights: normalised unscaled, then scaled per row.
      ImageParam weight =
          input(Float(32), "weight", {p.weightGroups, p.features});
      Expr group = m % int(p.weightGroups);
      NormDescription plain = p.norm;
      plain.unitOffset = false;
      scale(k) = 1.0f;
      shift(k) = 0.0f;
      funcs_ = defineNorm(plain, source, p.features, scale, shift);
      Expr w = weight(k, group);
      if (p.norm.unitOffset)
        w = w + 1.0f;
      Expr y = funcs_.normalized(k, m) * w;
      if (p.norm.bias) {
        ImageParam bias =
            input(Float(32), "bias", {p.weightGroups, p.features});
        y = y + bias(k, group);
      }
      output_(k, m) = y;
    }
    output(output_, {p.rows, p.features});
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    // A row's statistics, then the row, while it is in cache.
    scheduleElementwiseCpu(output_, k, m, params_.features,
                           params_.rows * params_.features, target);
    funcs_.stats.compute_at(output_, m);
    for (Func sum : sums()) {
      sum.compute_at(output_, m);
      scheduleVectorSum(sum, funcs_.r.x, target.vectorLanes);
    }
  }

  void scheduleGpu(const ScheduleTarget &) override {
    // A block per row: its threads sum strided parts of the row, one
    // thread adds those up, all of them scale the row.
    const int threads = 64;
    Var ko("ko"), ki("ki"), lane("lane");
    output_.split(k, ko, ki, threads, TailStrategy::GuardWithIf)
        .reorder(ki, ko, m)
        .gpu_blocks(m)
        .gpu_threads(ki);
    funcs_.stats.compute_at(output_, m);
    for (Func sum : sums()) {
      RVar ro("ro"), ri("ri");
      sum.update().split(funcs_.r.x, ro, ri, threads,
                         TailStrategy::GuardWithIf);
      Func partial = sum.update().rfactor(ri, lane);
      sum.compute_at(output_, m);
      partial.compute_at(output_, m).gpu_threads(lane);
      partial.update().gpu_threads(lane);
    }
  }

private:
  std::vector<Func> sums() const {
    if (params_.norm.type == NormType::LayerNorm)
      return {funcs_.sum, funcs_.sumSquares};
    return {funcs_.sumSquares};
  }

  NormParams params_;
  Var k{"k"}, m{"m"};
  NormFuncs funcs_;
  Func output_{"output"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createNorm(const KernelDescription &kernel,
                         const ScheduleTarget &) {
  return std::make_unique<Norm>(std::get<NormParams>(kernel.params));
}
