//===- Elementwise.cpp - Activations and binary ops on activations --------===//
//
// C ABI: lhs [rows, features], [rhs [rows, features]] (add, mul, swiglu,
// geglu) -> output [rows, features].
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/Kernel.h"
#include "compiler/backends/halide/gen/Math.h"

using namespace Halide;
using namespace tfmc::halide;

namespace {

bool isBinary(ElementwiseOp op) {
  return op == ElementwiseOp::Add || op == ElementwiseOp::Mul ||
         op == ElementwiseOp::SwiGlu || op == ElementwiseOp::GeGlu;
}

class Elementwise : public Kernel {
public:
  explicit Elementwise(const ElementwiseParams &p) : params_(p) {
    ImageParam lhs = input(Float(32), "lhs", {p.rows, p.features});
    ImageParam rhs;
    if (isBinary(p.op))
      rhs = input(Float(32), "rhs", {p.rows, p.features});
    Expr a = lhs(k, m), y;
    switch (p.op) {
    case ElementwiseOp::Add:
      y = a + rhs(k, m);
      break;
    case ElementwiseOp::Mul:
      y = a * rhs(k, m);
      break;
    case ElementwiseOp::Relu:
      y = activate(Activation::Relu, a);
      break;
    case ElementwiseOp::Silu:
      y = activate(Activation::Silu, a);
      break;
    case ElementwiseOp::GeluTanh:
      y = activate(Activation::GeluTanh, a);
      break;
    case ElementwiseOp::GeluErf:
      y = activate(Activation::GeluErf, a);
      break;
    case ElementwiseOp::SwiGlu:
      y = activate(Activation::Silu, a) * rhs(k, m);
      break;
    case ElementwiseOp::GeGlu:
      y = activate(Activation::GeluTanh, a) * rhs(k, m);
      break;
    case ElementwiseOp::SoftCap:
      y = softCap(a, static_cast<float>(p.cap));
      break;
    }
    output_(k, m) = y;
    output(output_, {p.rows, p.features});
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    scheduleElementwiseCpu(output_, k, m, params_.features,
                           params_.rows * params_.features, target);
  }
  void scheduleGpu(const ScheduleTarget &) override {
    scheduleElementwiseGpu(output_, k, m);
  }

private:
  ElementwiseParams params_;
  Var k{"k"}, m{"m"};
  Func output_{"output"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createElementwise(const KernelDescription &kernel,
                                const ScheduleTarget &) {
  return std::make_unique<Elementwise>(
      std::get<ElementwiseParams>(kernel.params));
}
