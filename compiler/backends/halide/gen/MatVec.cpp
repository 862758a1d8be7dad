//===- MatVec.cpp - Products with a weight matrix, for three kinds --------===//
#include "compiler/backends/halide/gen/MatVec.h"

#include "compiler/backends/halide/gen/Dequantize.h"

#include <algorithm>

using namespace Halide;
using namespace tfmc::halide;

void tfmc::halide::scheduleVectorSum(Func f, RVar rvar, int lanes) {
  RVar outer("outer"), inner("inner");
  Var lane("lane");
  f.update().split(rvar, outer, inner, lanes, TailStrategy::GuardWithIf);
  Func partial = f.update().rfactor(inner, lane);
  partial.compute_at(f, Var::outermost()).vectorize(lane);
  partial.update().vectorize(lane);
  f.update().atomic().vectorize(inner);
}

void tfmc::halide::scheduleLaneSums(Func lanesum, Var lane, RVar outer,
                                    const std::vector<Var> &tile,
                                    WeightType type, int lanes,
                                    bool unrollBlock) {
  Stage sum = lanesum.update();
  std::vector<VarOrRVar> order = {lane};
  order.insert(order.end(), tile.begin(), tile.end());
  const int64_t block = weightBlockElements(type);
  if (unrollBlock && block > lanes) {
    RVar blocks("blocks");
    sum.split(outer, blocks, outer, static_cast<int>(block / lanes));
    order.push_back(outer);
    order.push_back(blocks);
    sum.reorder(order).unroll(outer);
  } else {
    order.push_back(outer);
    sum.reorder(order);
  }
  sum.vectorize(lane);
  for (const Var &v : tile)
    sum.unroll(v);
}

void MatVecKernel::defineMatVec(const MatVecShape &shape,
                                const ScheduleTarget &target) {
  shape_ = shape;
  const int64_t in = shape.inFeatures;
  input_ = input(Float(32), "input", {shape.rows, in});
  Func source("source");
  source(k, m) = input_(k, m);
  if (shape.prologue.type != NormType::None) {
    normWeight_ = input(Float(32), "norm_weight", {in});
    Func bias("norm_bias_values");
    if (shape.prologue.bias) {
      normBias_ = input(Float(32), "norm_bias", {in});
      bias(k) = normBias_(k);
    } else {
      bias(k) = 0.0f;
    }
    Func weight("norm_weight_values");
    weight(k) = normWeight_(k);
    norm_ = defineNorm(shape.prologue, source, in, weight, bias);
    x(k, m) = norm_->normalized(k, m);
  } else {
    x(k, m) = source(k, m);
  }
  weight_ = input(weightStorageType(shape.weight), shape.weightName,
                  {shape.groups * shape.outFeatures,
                   weightStorageColumns(shape.weight, in)});
  wdq(k, o, g) = dequantize(shape.weight, weight_, k,
                            g * static_cast<int>(shape.outFeatures) + o,
                            target.nativeHalf);
  r = RDom(0, static_cast<int>(in), "r");
  acc(o, g, m) = 0.0f;
  acc(o, g, m) += x(r, m) * wdq(r, o, g);
}

void MatVecKernel::scheduleMatVecCpu(Func out, const ScheduleTarget &target) {
  const MatVecShape &s = shape_;
  const int lanes = target.vectorLanes;
  const int groups = static_cast<int>(s.groups);
  const bool gemv = s.rows <= 4;
  // Half of the vector registers accumulate: rows x outputs x groups.
  const int accumulators = target.registers / 2;
  const int tileRows = static_cast<int>(std::min<int64_t>(s.rows, 4));
  const int tileOutputs = static_cast<int>(std::min<int64_t>(
      std::max(1, std::min(8, accumulators / (tileRows * groups))),
      s.outFeatures));
  // A panel of outputs per task: its dequantized rows (prefill) stay in
  // L2 (~256 KiB), and there are enough panels for the threads.
  int64_t panel = std::max<int64_t>(tileOutputs, (64 << 10) / s.inFeatures);
  panel = std::min<int64_t>(panel, 256);
  panel =
      std::min(panel, std::max<int64_t>(tileOutputs,
                                        s.outFeatures / (4 * target.threads)));
  panel = std::max<int64_t>(tileOutputs, panel / tileOutputs * tileOutputs);
  panel = std::min(panel, s.outFeatures);

  Var oo("oo"), ot("ot"), oi("oi"), mo("mo"), mi("mi");
  out.split(o, oo, o, static_cast<int>(panel), TailStrategy::ShiftInwards)
      .split(o, ot, oi, tileOutputs, TailStrategy::ShiftInwards)
      .split(m, mo, mi, tileRows, TailStrategy::ShiftInwards)
      .reorder(oi, mi, ot, mo, oo)
      .unroll(oi)
      .unroll(mi)
      .parallel(oo);

  // The products of a micro-tile, summed in vector lanes along k.
  const int64_t block = weightBlockElements(s.weight);
  const bool laneDivides = s.inFeatures % lanes == 0;
  RVar rko("rko"), rki("rki");
  Var lane("lane");
  acc.update().split(r, rko, rki, lanes, TailStrategy::GuardWithIf);
  Func lanesum = acc.update().rfactor(rki, lane);
  acc.compute_at(out, ot).unroll(o).unroll(g).unroll(m);
  acc.update().reorder(o, g, m, rki).unroll(o).unroll(g).unroll(m);
  acc.update().atomic().vectorize(rki);
  lanesum.compute_at(out, ot)
      .reorder_storage(lane, o, g, m)
      .vectorize(lane)
      .unroll(o)
      .unroll(g)
      .unroll(m);
  scheduleLaneSums(lanesum, lane, rko, {o, g, m}, s.weight, lanes,
                   gemv && laneDivides);

  if (!gemv && s.weight != WeightType::F32) {
    // Dequantize the panel's rows once for all its row tiles.
    Var ko("ko"), ki("ki");
    int chunk = static_cast<int>(std::max<int64_t>(block, lanes));
    if (s.inFeatures % chunk == 0)
      wdq.compute_at(out, oo)
          .split(k, ko, ki, chunk)
          .vectorize(ki, lanes)
          .reorder(ki, ko, o, g);
    else
      wdq.compute_at(out, oo).vectorize(k, lanes, TailStrategy::GuardWithIf);
  }
  if (norm_) {
    // The normalised input once, before the panels.
    norm_->stats.compute_root();
    if (shape_.prologue.type == NormType::LayerNorm) {
      norm_->sum.compute_at(norm_->stats, m);
      scheduleVectorSum(norm_->sum, norm_->r.x, lanes);
    }
    norm_->sumSquares.compute_at(norm_->stats, m);
    scheduleVectorSum(norm_->sumSquares, norm_->r.x, lanes);
    x.compute_root().vectorize(k, lanes, TailStrategy::GuardWithIf);
  }
}

void MatVecKernel::scheduleMatVecGpu(Func out, const ScheduleTarget &target) {
  const MatVecShape &s = shape_;
  if (norm_) {
    // One block per row computes its statistics, one thread per feature
    // applies them.
    Var mb("mb"), kb("kb"), kt("kt");
    norm_->stats.compute_root()
        .split(m, mb, m, 1)
        .gpu_blocks(mb)
        .gpu_threads(m);
    x.compute_root().gpu_tile(k, m, kb, mb, kt, m, 64, 1,
                              TailStrategy::GuardWithIf);
  }
  if (s.rows <= 4) {
    // One warp per output row; its lanes stride along k so that 32
    // consecutive weights load together.
    const int warp = 32;
    Var ob("ob"), ow("ow");
    RVar rko("rko"), rki("rki");
    Var lane("lane");
    const int rowsPerBlock = 8;
    Var olane("olane");
    out.split(o, ob, ow, rowsPerBlock, TailStrategy::GuardWithIf)
        .split(ow, ow, olane, 1)
        .reorder(m, olane, ow, ob)
        .gpu_blocks(ob)
        .gpu_threads(ow, olane)
        .unroll(m);
    acc.update().split(r, rko, rki, warp, TailStrategy::GuardWithIf);
    Func lanesum = acc.update().rfactor(rki, lane);
    acc.compute_at(out, olane).unroll(g).unroll(m);
    acc.update().reorder(g, m, rki).unroll(g).unroll(m);
    if (target.warpLanes) {
      // The lanes of a warp hold the partial sums in registers; the sum
      // across them becomes warp shuffles.
      lanesum.compute_at(out, ow).gpu_lanes(lane).unroll(g).unroll(m);
      lanesum.update()
          .reorder(g, m, rko, lane)
          .gpu_lanes(lane)
          .unroll(g)
          .unroll(m);
    } else {
      // OpenCL: a block's partial sums in shared memory, one thread per
      // (lane, output row).
      lanesum.compute_at(out, ob).gpu_threads(lane, o).unroll(g).unroll(m);
      lanesum.update()
          .reorder(g, m, rko, lane, o)
          .gpu_threads(lane, o)
          .unroll(g)
          .unroll(m);
    }
    return;
  }
  if (target.warpLanes) {
    // CUDA, a prefill chunk: each thread keeps a tile of 4 outputs x 8 rows
    // (x 2 halves when gated) in registers and streams its 4 weight rows
    // along k, which L1 serves a line at a time; the inputs it reads are
    // the same for every thread of the block (a broadcast). A block is 32
    // threads, 128 outputs x 8 rows.
    const int perThread = 4, threads = 32, tileRows = 8;
    Var ob("ob"), mb("mb"), oi("oi"), ot("ot"), ou("ou"), mu("mu");
    out.split(o, ob, oi, perThread * threads, TailStrategy::GuardWithIf)
        .split(oi, ot, ou, perThread)
        .split(m, mb, mu, tileRows, TailStrategy::GuardWithIf)
        .reorder(ou, mu, ot, ob, mb)
        .gpu_blocks(ob, mb)
        .gpu_threads(ot)
        .unroll(ou)
        .unroll(mu);
    acc.compute_at(out, ot)
        .unroll(o, perThread, TailStrategy::GuardWithIf)
        .unroll(m, tileRows, TailStrategy::GuardWithIf)
        .unroll(g);
    acc.update()
        .reorder(g, o, m, r)
        .unroll(o, perThread, TailStrategy::GuardWithIf)
        .unroll(m, tileRows, TailStrategy::GuardWithIf)
        .unroll(g);
    return;
  }
  // A prefill chunk: a block computes 32 outputs x 8 rows, one output per
  // thread, over k-chunks of 32 dequantized weights and inputs in shared
  // memory.
  const int tileOutputs = 32, tileRows = 8, chunk = 32;
  Var ob("ob"), mb("mb"), ot("ot"), mt("mt");
  out.tile(o, m, ob, mb, ot, mt, tileOutputs, tileRows,
           TailStrategy::GuardWithIf)
      .gpu_blocks(ob, mb)
      .gpu_threads(ot, mt);
  RVar rko("rko"), rki("rki");
  acc.compute_at(out, ob).gpu_threads(o, m).unroll(g);
  acc.update()
      .split(r, rko, rki, chunk, TailStrategy::GuardWithIf)
      .reorder(g, rki, o, m, rko)
      .gpu_threads(o, m)
      .unroll(g);
  Func weights = wdq.in(acc), inputs = x.in(acc);
  Var oo("oo"), oi("oi");
  weights.compute_at(acc, rko)
      .store_in(MemoryType::GPUShared)
      .split(o, oo, oi, tileRows, TailStrategy::GuardWithIf)
      .reorder(k, oi, g, oo)
      .gpu_threads(k, oi)
      .unroll(g);
  inputs.compute_at(acc, rko).store_in(MemoryType::GPUShared).gpu_threads(k, m);
}
