//===- MoeRouting.cpp - Top-k expert choice and weights per token --------===//
//
// Each row chooses the `top_k` experts with the largest router logits, the
// lower index first among equal ones (tfm.moe's rule), and weighs them:
// top_k_softmax, the softmax over the chosen logits (Mixtral);
// softmax_top_k, their probabilities under the softmax over all experts
// (Qwen2-MoE without norm_topk_prob).
//
// The choice is written without a sequential selection loop: expert e's
// rank is the number of experts that beat it, and slot i holds the expert
// whose rank is i. Every rank is independent of the others, so the
// experts' comparisons vectorise on a CPU and spread over threads on a
// GPU; experts are few (8 to 128), so the quadratic count is cheap.
//
// C ABI: logits [rows, experts]; or, with in_features, input [rows, in]
// and router [experts, in] (stored form) -> weights [rows, top_k] (f32),
// experts [rows, top_k] (int32).
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/MatVec.h"

using namespace Halide;
using namespace tfmc::halide;

namespace {

class MoeRouting : public MatVecKernel {
public:
  MoeRouting(const MoeRoutingParams &p, const ScheduleTarget &target)
      : params_(p) {
    const int experts = static_cast<int>(p.experts);
    const int topK = static_cast<int>(p.topK);
    Var e("e"), i("i");
    if (p.inFeatures > 0) {
      MatVecShape shape;
      shape.rows = p.rows;
      shape.inFeatures = p.inFeatures;
      shape.outFeatures = p.experts;
      shape.weight = p.router;
      shape.weightName = "router";
      defineMatVec(shape, target);
      logits_(o, m) = acc(o, 0, m);
    } else {
      ImageParam logits = input(Float(32), "logits", {p.rows, p.experts});
      logits_(o, m) = logits(o, m);
    }
    RDom other(0, experts, "other");
    Expr mine = logits_(e, m), theirs = logits_(other, m);
    rank_(e, m) = 0;
    rank_(e, m) += select(theirs > mine || (theirs == mine && other < e), 1, 0);
    RDom each(0, experts, "each");
    Expr holds = rank_(each, m) == i;
    chosen_(i, m) = {0, 0.0f};
    chosen_(i, m) = {select(holds, each, chosen_(i, m)[0]),
                     select(holds, logits_(each, m), chosen_(i, m)[1])};
    // Rank 0 holds the largest logit: the softmax's stabiliser.
    Expr largest = chosen_(0, m)[1];
    RDom slots(0, topK, "slots");
    denominator_(m) = 0.0f;
    if (p.routing == Routing::TopKSoftmax)
      denominator_(m) += exp(chosen_(slots, m)[1] - largest);
    else
      denominator_(m) += exp(logits_(each, m) - largest);
    weights_(i, m) = exp(chosen_(i, m)[1] - largest) / denominator_(m);
    experts_(i, m) = chosen_(i, m)[0];
    output(weights_, {p.rows, p.topK});
    output(experts_, {p.rows, p.topK});
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    if (params_.inFeatures > 0) {
      logits_.compute_root();
      scheduleMatVecCpu(logits_, target);
    }
    Var e = rank_.args()[0];
    rank_.compute_root();
    if (params_.experts >= target.vectorLanes)
      rank_.update().vectorize(e, target.vectorLanes,
                               TailStrategy::GuardWithIf);
    chosen_.compute_root();
    denominator_.compute_root();
  }

  void scheduleGpu(const ScheduleTarget &target) override {
    if (params_.inFeatures > 0) {
      logits_.compute_root();
      scheduleMatVecGpu(logits_, target);
    }
    // A block per row, a thread per expert (ranks) or slot (choices).
    Var e = rank_.args()[0], i = chosen_.args()[0];
    rank_.compute_root().gpu_blocks(m).gpu_threads(e);
    rank_.update().gpu_blocks(m).gpu_threads(e);
    chosen_.compute_root().gpu_blocks(m).gpu_threads(i);
    chosen_.update().gpu_blocks(m).gpu_threads(i);
    denominator_.compute_root().gpu_blocks(m);
    denominator_.update().gpu_blocks(m);
    weights_.gpu_blocks(m).gpu_threads(weights_.args()[0]);
    experts_.gpu_blocks(m).gpu_threads(experts_.args()[0]);
  }

private:
  MoeRoutingParams params_;
  Func logits_{"logits_values"}, rank_{"rank"}, chosen_{"chosen"},
      denominator_{"denominator"}, weights_{"weights"}, experts_{"experts"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createMoeRouting(const KernelDescription &kernel,
                               const ScheduleTarget &target) {
  return std::make_unique<MoeRouting>(std::get<MoeRoutingParams>(kernel.params),
                                      target);
}
