//===- Projection.cpp - A linear layer with its fused epilogue ------------===//
//
// `output = epilogue(prologue(input) * weight^T)`: a GEMV for a decode step
// and a GEMM for a prefill chunk, the weight in any WeightType. The
// epilogue runs on each output tile while it is in registers: bias, then
// the activation, for a gated projection times the `up` half (SwiGLU:
// silu(gate) * up), then the residual add.
//
// C ABI: input [rows, in], [norm_weight [in], [norm_bias [in]]],
// weight [groups * out, in] (stored form), [bias [groups * out]],
// [residual [rows, out]] -> output [rows, out].
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/MatVec.h"

using namespace Halide;
using namespace tfmc::halide;

namespace {

class Projection : public MatVecKernel {
public:
  Projection(const ProjectionParams &p, const ScheduleTarget &target)
      : params_(p) {
    MatVecShape shape;
    shape.rows = p.rows;
    shape.inFeatures = p.inFeatures;
    shape.outFeatures = p.outFeatures;
    shape.groups = p.gated ? 2 : 1;
    shape.weight = p.weight;
    shape.prologue = p.prologue;
    defineMatVec(shape, target);
    const int out = static_cast<int>(p.outFeatures);
    Expr gate = acc(o, 0, m), up;
    if (p.gated)
      up = acc(o, 1, m);
    if (p.bias) {
      bias_ = input(Float(32), "bias", {shape.groups * p.outFeatures});
      gate += bias_(o);
      if (p.gated)
        up += bias_(o + out);
    }
    Expr y = activate(p.activation, gate);
    if (p.gated)
      y *= up;
    if (p.residual) {
      residual_ = input(Float(32), "residual", {p.rows, p.outFeatures});
      y += residual_(o, m);
    }
    output_(o, m) = y;
    output(output_, {p.rows, p.outFeatures});
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    scheduleMatVecCpu(output_, target);
  }
  void scheduleGpu(const ScheduleTarget &target) override {
    scheduleMatVecGpu(output_, target);
  }

private:
  ProjectionParams params_;
  ImageParam bias_, residual_;
  Func output_{"output"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createProjection(const KernelDescription &kernel,
                               const ScheduleTarget &target) {
  return std::make_unique<Projection>(std::get<ProjectionParams>(kernel.params),
                                      target);
}
