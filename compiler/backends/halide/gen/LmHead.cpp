//===- LmHead.cpp - Logits over the vocabulary ----------------------------===//
//
// A projection onto the vocabulary, optionally after the final norm (the
// prologue): the largest matrix of a model, read once per decode step, so
// its outputs split into many panels for the threads.
//
// C ABI: input [rows, in], [norm_weight [in], [norm_bias [in]]],
// weight [vocab, in] (stored form) -> logits [rows, vocab].
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/MatVec.h"

using namespace Halide;
using namespace tfmc::halide;

namespace {

class LmHead : public MatVecKernel {
public:
  LmHead(const LmHeadParams &p, const ScheduleTarget &target) {
    MatVecShape shape;
    shape.rows = p.rows;
    shape.inFeatures = p.inFeatures;
    shape.outFeatures = p.vocab;
    shape.weight = p.weight;
    shape.prologue = p.prologue;
    defineMatVec(shape, target);
    logits_(o, m) = acc(o, 0, m);
    output(logits_, {p.rows, p.vocab});
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    scheduleMatVecCpu(logits_, target);
  }
  void scheduleGpu(const ScheduleTarget &target) override {
    scheduleMatVecGpu(logits_, target);
  }

private:
  Func logits_{"logits"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createLmHead(const KernelDescription &kernel,
                           const ScheduleTarget &target) {
  return std::make_unique<LmHead>(std::get<LmHeadParams>(kernel.params),
                                  target);
}
