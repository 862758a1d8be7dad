//===- MoeExperts.cpp - The chosen SwiGLU experts, weighed and summed -----===//
//
// What MoE routing chose, run: for each row and each of its top_k choices
// (an expert index and a weight), the expert's SwiGLU FFN over the row,
// weighed, summed in the order of the choices:
//
//   inner(h, c, m)  = silu(gate_e x_m)[h] * (up_e x_m)[h]
//   output(f, m)    = sum_c weights(c, m) * (down_e inner(., c, m))[f]
//
// with e = experts(c, m) clamped to [0, experts), so that no index reads
// past the stacked matrices. The expert's rows are found from the index at
// run time: only the chosen experts' weights are read, each from its
// stored bytes (dequantized in the kernel, as projections do).
//
// CPU schedule: the gate and up products of a panel of hidden units per
// task, then the down products of a panel of outputs per task, each row's
// products summed in vector lanes along it (its stored weights stream
// contiguously), a tile of rows side by side.
// GPU schedule: a thread per hidden unit, then a thread per output, each
// summing its row; correct everywhere, not yet tuned (docs/halide.md).
//
// C ABI: input [rows, in], weights [rows, top_k] (f32), experts [rows,
// top_k] (int32), gate [experts * hidden, in], up [experts * hidden, in],
// down [experts * in, hidden] (stored forms) -> output [rows, in].
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/Dequantize.h"
#include "compiler/backends/halide/gen/Kernel.h"
#include "compiler/backends/halide/gen/MatVec.h"
#include "compiler/backends/halide/gen/Math.h"

#include <algorithm>

using namespace Halide;
using namespace tfmc::halide;

namespace {

class MoeExperts : public Kernel {
public:
  MoeExperts(const MoeExpertsParams &p, const ScheduleTarget &target)
      : params_(p) {
    const int in = static_cast<int>(p.inFeatures);
    const int hidden = static_cast<int>(p.hidden);
    input_ = input(Float(32), "input", {p.rows, p.inFeatures});
    weights_ = input(Float(32), "weights", {p.rows, p.topK});
    experts_ = input(Int(32), "experts", {p.rows, p.topK});
    gate_ = input(
        weightStorageType(p.gate), "gate",
        {p.experts * p.hidden, weightStorageColumns(p.gate, p.inFeatures)});
    up_ =
        input(weightStorageType(p.up), "up",
              {p.experts * p.hidden, weightStorageColumns(p.up, p.inFeatures)});
    down_ = input(
        weightStorageType(p.down), "down",
        {p.experts * p.inFeatures, weightStorageColumns(p.down, p.hidden)});

    // Inlined, so that bounds inference sees the clamp.
    Expr expert = clamp(experts_(c, m), 0, static_cast<int>(p.experts) - 1);
    rk_ = RDom(0, in, "rk");
    Expr hiddenRow = expert * hidden + h;
    gateAcc_(h, c, m) = 0.0f;
    gateAcc_(h, c, m) +=
        input_(rk_, m) *
        dequantize(p.gate, gate_, rk_, hiddenRow, target.nativeHalf);
    upAcc_(h, c, m) = 0.0f;
    upAcc_(h, c, m) += input_(rk_, m) *
                       dequantize(p.up, up_, rk_, hiddenRow, target.nativeHalf);
    inner_(h, c, m) =
        activate(Activation::Silu, gateAcc_(h, c, m)) * upAcc_(h, c, m);

    rh_ = RDom(0, hidden, "rh");
    downAcc_(f, c, m) = 0.0f;
    downAcc_(f, c, m) +=
        inner_(rh_, c, m) *
        dequantize(p.down, down_, rh_, expert * in + f, target.nativeHalf);
    // The choices in order from 0, as tfm.moe_experts sums them; a pure
    // definition (top_k is a constant), so that its tiles may overlap.
    Expr sum = 0.0f;
    for (int choice = 0; choice < static_cast<int>(p.topK); ++choice)
      sum += weights_(choice, m) * downAcc_(f, choice, m);
    output_(f, m) = sum;
    output(output_, {p.rows, p.inFeatures});
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    const MoeExpertsParams &p = params_;
    // Half of the vector registers accumulate; a tile's rows are summed
    // side by side so that their chains of vector adds do not wait on one
    // another.
    const int accumulators = target.registers / 2;
    auto tileOf = [](int64_t extent, int64_t tile) {
      return static_cast<int>(std::max<int64_t>(1, std::min(extent, tile)));
    };
    // A panel of rows per task: enough panels for the threads. Tiles and
    // panels overlap at the ends (ShiftInwards): they stay whole, so that
    // their loops unroll.
    auto panelOf = [&](int64_t extent, int tile) {
      int64_t panel = extent / (4 * target.threads) / tile * tile;
      return tileOf(extent, std::max<int64_t>(tile, panel));
    };

    const int hiddenTile = tileOf(p.hidden, std::min(8, accumulators));
    Var ho("ho"), hi("hi"), ht("ht"), hx("hx"), task("task");
    inner_.compute_root()
        .split(h, ho, hi, panelOf(p.hidden, hiddenTile),
               TailStrategy::ShiftInwards)
        .split(hi, ht, hx, hiddenTile, TailStrategy::ShiftInwards)
        .reorder(hx, ht, ho, c, m)
        .unroll(hx)
        .fuse(ho, c, task)
        .parallel(task);
    scheduleRowSums(gateAcc_, h, RVar(rk_.x), p.inFeatures, p.gate,
                    LoopLevel(inner_, ht), target);
    scheduleRowSums(upAcc_, h, RVar(rk_.x), p.inFeatures, p.up,
                    LoopLevel(inner_, ht), target);

    const int outputTile =
        tileOf(p.inFeatures, std::max<int64_t>(1, accumulators / p.topK));
    Var fo("fo"), fi("fi"), ft("ft"), fx("fx");
    output_
        .split(f, fo, fi, panelOf(p.inFeatures, outputTile),
               TailStrategy::ShiftInwards)
        .split(fi, ft, fx, outputTile, TailStrategy::ShiftInwards)
        .reorder(fx, ft, fo, m)
        .unroll(fx)
        .parallel(fo);
    scheduleRowSums(downAcc_, f, RVar(rh_.x), p.hidden, p.down,
                    LoopLevel(output_, ft), target);
  }

  void scheduleGpu(const ScheduleTarget &target) override {
    const int threads = 64;
    Var hb("hb"), ht("ht");
    inner_.compute_root()
        .split(h, hb, ht, threads, TailStrategy::GuardWithIf)
        .reorder(ht, hb, c, m)
        .gpu_blocks(hb, c, m)
        .gpu_threads(ht);
    gateAcc_.compute_at(inner_, ht);
    upAcc_.compute_at(inner_, ht);

    Var fb("fb"), ft("ft");
    output_.split(f, fb, ft, threads, TailStrategy::GuardWithIf)
        .gpu_blocks(fb, m)
        .gpu_threads(ft);
    downAcc_.compute_at(output_, ft);
  }

private:
  /// `product(x, c, m) += a(r, ...) * w(r, row(x, c, m))` over `r` in
  /// [0, extent), computed at `at` for a tile of x (and every c there):
  /// each row's products are summed in vector lanes along r, which streams
  /// its stored weights contiguously (rfactor, as MatVec's GEMV), the
  /// tile's rows and choices side by side.
  static void scheduleRowSums(Func product, Var x, RVar r, int64_t extent,
                              WeightType type, LoopLevel at,
                              const ScheduleTarget &target) {
    const int lanes = target.vectorLanes;
    Var c = product.args()[1], m = product.args()[2];
    RVar ro("ro"), ri("ri");
    Var lane("lane");
    product.compute_at(at).unroll(x).unroll(c);
    product.update().split(r, ro, ri, lanes, TailStrategy::GuardWithIf);
    Func partial = product.update().rfactor(ri, lane);
    product.update().reorder(x, c, m, ri).unroll(x).unroll(c).unroll(m);
    product.update().atomic().vectorize(ri);
    partial.compute_at(at)
        .reorder_storage(lane, x, c, m)
        .vectorize(lane)
        .unroll(x)
        .unroll(c)
        .unroll(m);
    scheduleLaneSums(partial, lane, ro, {x, c, m}, type, lanes,
                     extent % lanes == 0);
  }

  MoeExpertsParams params_;
  Var f{"f"}, h{"h"}, c{"c"}, m{"m"};
  RDom rk_, rh_;
  ImageParam input_, weights_, experts_, gate_, up_, down_;
  Func gateAcc_{"gate_acc"}, upAcc_{"up_acc"}, inner_{"inner"},
      downAcc_{"down_acc"}, output_{"output"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createMoeExperts(const KernelDescription &kernel,
                               const ScheduleTarget &target) {
  return std::make_unique<MoeExperts>(std::get<MoeExpertsParams>(kernel.params),
                                      target);
}
