//===- MatVec.h - Products with a weight matrix, for three kinds -*- C++
//-*-===//
//
// The part projections, the LM head and MoE routing share: an input
// `[rows, in]`, optionally normalised first (the fused prologue), times a
// weight `[groups * out, in]` read from its stored bytes, summed in f32:
//
//   acc(o, g, m) = sum_k x(k, m) * w(k, g * out + o)
//
// Group g = 1 is a gated projection's `up` half: keeping the groups a
// dimension of their own keeps the region a tile of outputs needs a box of
// two rows per output, not everything between the halves.
//
// CPU schedule (hannk's fully_connected, with in-kernel dequantization):
// micro-tiles of outputs x rows whose products are summed in vector lanes
// along k (rfactor), so that every weight row streams contiguously; a
// decode step (few rows) dequantizes each weight where it multiplies it,
// a prefill chunk first dequantizes a panel of rows once for all its
// row tiles. Threads take panels of outputs.
// GPU schedule: a decode step gives each output a warp whose lanes stride
// along k (coalesced), reduced with warp shuffles on CUDA and through
// shared memory on OpenCL; a prefill chunk on CUDA gives each thread a
// register tile of 4 outputs x 8 rows that streams its weight rows along
// k, and on OpenCL tiles outputs x rows over threads with a k-chunk of
// dequantized weights and inputs staged in shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_HALIDE_GEN_MATVEC_H
#define TFMC_COMPILER_BACKENDS_HALIDE_GEN_MATVEC_H

#include "compiler/backends/halide/gen/Kernel.h"
#include "compiler/backends/halide/gen/Math.h"

#include <optional>

namespace tfmc::halide {

struct MatVecShape {
  int64_t rows = 0, inFeatures = 0, outFeatures = 0, groups = 1;
  WeightType weight = WeightType::F32;
  NormDescription prologue;
  /// The weight argument's name in the C ABI.
  std::string weightName = "weight";
};

class MatVecKernel : public Kernel {
protected:
  /// Declares the inputs `input`, [`norm_weight`, [`norm_bias`]] and
  /// `weight`, in this order, and defines `acc`.
  void defineMatVec(const MatVecShape &shape, const ScheduleTarget &target);

  /// Schedules `acc` and its producers for a consumer `out(o, m)` that
  /// reads acc(o, g, m) for all g. `maxTile`: outputs per micro-tile at most.
  void scheduleMatVecCpu(Halide::Func out, const ScheduleTarget &target);
  void scheduleMatVecGpu(Halide::Func out, const ScheduleTarget &target);

  MatVecShape shape_;
  Halide::Var o{"o"}, g{"g"}, m{"m"}, k{"k"};
  Halide::ImageParam input_, weight_, normWeight_, normBias_;
  Halide::Func x{"x"}, wdq{"dequantized"}, acc{"acc"};
  Halide::RDom r;
  std::optional<NormFuncs> norm_;
};

/// Sums `f`'s update over `rvar` (its only reduction) in `lanes` vector
/// lanes first, then across them: one horizontal sum instead of one per
/// step.
void scheduleVectorSum(Halide::Func f, Halide::RVar rvar, int lanes);

/// Orders the update of `lanesum`, a product's partial sums in the vector
/// `lane`s along the reduction `outer` (a split of the row into vectors),
/// for a `tile` of outputs (innermost first, unrolled) side by side. With
/// `unrollBlock`, each quantization block of `type` is unrolled so that
/// each vector's position in it is a constant: its bytes then load densely
/// and its scale broadcasts (the row must hold whole vectors).
void scheduleLaneSums(Halide::Func lanesum, Halide::Var lane,
                      Halide::RVar outer, const std::vector<Halide::Var> &tile,
                      WeightType type, int lanes, bool unrollBlock);

} // namespace tfmc::halide

#endif // TFMC_COMPILER_BACKENDS_HALIDE_GEN_MATVEC_H
