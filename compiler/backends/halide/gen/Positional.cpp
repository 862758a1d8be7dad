//===- Positional.cpp - RoPE, embeddings, position encodings -------------===//
//
// C ABI by op:
//   rope:             input [rows, heads, head_dim], pos -> output (same)
//   token_embedding:  tokens [rows] (int32), table [vocab, features]
//                     (stored form) -> output [rows, features]
//   learned_position: input [rows, features], table [positions, features]
//                     (stored form), pos -> output [rows, features]
//   sinusoidal:       input [rows, features], pos -> output [rows, features]
// Row `s` of the input sits at position `pos + s`. The frequencies are
// compile-time constants computed as tfmc's LLVM backend computes them
// (passes/Conversion/TfmToLinalg/Positional.cpp), so both backends rotate
// by the same f32 angles.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/Dequantize.h"
#include "compiler/backends/halide/gen/Kernel.h"

#include <cmath>

using namespace Halide;
using namespace tfmc::halide;

namespace {

/// The largest position a kernel accepts: angles stay meaningful in f32
/// far beyond any context, and indices fit in int32.
constexpr int32_t kMaxPosition = 1 << 24;

class Positional : public Kernel {
public:
  Positional(const PositionalParams &p, const ScheduleTarget &target)
      : params_(p) {
    switch (p.op) {
    case PositionalOp::Rope:
      defineRope(p);
      break;
    case PositionalOp::TokenEmbedding:
      defineTokenEmbedding(p, target);
      break;
    case PositionalOp::LearnedPosition:
      defineLearnedPosition(p, target);
      break;
    case PositionalOp::Sinusoidal:
      defineSinusoidal(p);
      break;
    }
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    if (params_.op == PositionalOp::Rope) {
      // The angles of a row once, for all its heads.
      scheduleElementwiseCpu(output_, d, r, params_.headDim,
                             params_.rows * params_.heads * params_.headDim,
                             target);
      angles_.compute_at(output_, r);
      return;
    }
    scheduleElementwiseCpu(output_, k, m, params_.features,
                           params_.rows * params_.features, target);
    if (params_.op == PositionalOp::Sinusoidal)
      angles_.compute_at(output_, m);
  }

  void scheduleGpu(const ScheduleTarget &) override {
    if (params_.op == PositionalOp::Rope) {
      Var block("block"), thread("thread");
      output_.split(d, block, thread, 64, TailStrategy::GuardWithIf)
          .reorder(thread, block, h, r)
          .gpu_blocks(h, r)
          .gpu_threads(thread);
      // Computed on the host: a few hundred sin and cos per call.
      angles_.compute_root();
      return;
    }
    scheduleElementwiseGpu(output_, k, m);
    if (params_.op == PositionalOp::Sinusoidal)
      angles_.compute_root();
  }

private:
  void defineRope(const PositionalParams &p) {
    const int headDim = static_cast<int>(p.headDim);
    const int rotary = static_cast<int>(p.rotaryDim ? p.rotaryDim : p.headDim);
    const int pairs = rotary / 2;
    ImageParam in = input(Float(32), "input", {p.rows, p.heads, p.headDim});
    Param<int32_t> pos = scalar("pos", 0, kMaxPosition, 0);
    // theta^(-2i / rotary_dim) in f32, as llama2.c and tfmc compute it, or
    // a scaled RoPE's own frequencies.
    Buffer<float> frequencies(pairs, "rope_frequencies");
    const float theta = static_cast<float>(p.theta);
    for (int i = 0; i < pairs; ++i)
      frequencies(i) =
          p.frequencies.empty()
              ? 1.0f / std::pow(theta, static_cast<float>(2 * i) /
                                           static_cast<float>(rotary))
              : static_cast<float>(p.frequencies[static_cast<size_t>(i)]);
    // Clamped: autoscheduled tiles may compute angles past the pairs.
    Expr angle = cast<float>(pos + r) * frequencies(clamp(d, 0, pairs - 1));
    if (p.attentionFactor != 1.0) {
      Expr factor = static_cast<float>(p.attentionFactor);
      angles_(d, r) = {cos(angle) * factor, sin(angle) * factor};
    } else {
      angles_(d, r) = {cos(angle), sin(angle)};
    }
    Expr x = in(d, h, r), rotated;
    if (p.layout == RopeLayout::Interleaved) {
      // Pairs (2i, 2i + 1).
      // Pairs past rotary_dim read the last angle and are not used.
      Expr i = min(d / 2, pairs - 1);
      // 2 * i, not d - d % 2: bounds inference sees [0, head_dim) for it.
      Expr first = in(2 * i, h, r), second = in(2 * i + 1, h, r);
      Expr c = angles_(i, r)[0], s = angles_(i, r)[1];
      rotated =
          select(d % 2 == 0, first * c - second * s, second * c + first * s);
    } else {
      // Pairs (i, i + rotary / 2).
      Expr i = clamp(select(d < pairs, d, d - pairs), 0, pairs - 1);
      Expr first = in(i, h, r), second = in(i + pairs, h, r);
      Expr c = angles_(i, r)[0], s = angles_(i, r)[1];
      rotated =
          select(d < pairs, first * c - second * s, second * c + first * s);
    }
    // Features past rotary_dim pass through (partial rotary).
    output_(d, h, r) =
        rotary < headDim ? select(d < rotary, rotated, x) : rotated;
    output(output_, {p.rows, p.heads, p.headDim});
  }

  void defineTokenEmbedding(const PositionalParams &p,
                            const ScheduleTarget &target) {
    ImageParam tokens = input(Int(32), "tokens", {p.rows});
    ImageParam table =
        input(weightStorageType(p.table), "table",
              {p.vocab, weightStorageColumns(p.table, p.features)});
    // Out-of-range ids are clamped, as tfm.embedding does: the runtime
    // validates ids, and a bad one must not read outside the table.
    Expr id = clamp(tokens(m), 0, static_cast<int>(p.vocab) - 1);
    Expr value = dequantize(p.table, table, k, id, target.nativeHalf);
    if (p.scale != 1.0)
      value *= static_cast<float>(p.scale);
    output_(k, m) = value;
    output(output_, {p.rows, p.features});
  }

  void defineLearnedPosition(const PositionalParams &p,
                             const ScheduleTarget &target) {
    ImageParam in = input(Float(32), "input", {p.rows, p.features});
    ImageParam table =
        input(weightStorageType(p.table), "table",
              {p.positions, weightStorageColumns(p.table, p.features)});
    Param<int32_t> pos =
        scalar("pos", 0, static_cast<int32_t>(p.positions - p.rows), 0);
    output_(k, m) =
        in(k, m) + dequantize(p.table, table, k, pos + m, target.nativeHalf);
    output(output_, {p.rows, p.features});
  }

  void defineSinusoidal(const PositionalParams &p) {
    const int features = static_cast<int>(p.features);
    ImageParam in = input(Float(32), "input", {p.rows, p.features});
    Param<int32_t> pos = scalar("pos", 0, kMaxPosition, 0);
    // exp(2i * (f32)(-ln(base) / d)), in f32 as PyTorch computes it.
    Buffer<float> frequencies(features, "sinusoidal_frequencies");
    const float step =
        static_cast<float>(-std::log(p.base) / static_cast<double>(features));
    for (int f = 0; f < features; ++f)
      frequencies(f) = std::exp(static_cast<float>(f - f % 2) * step);
    Expr angle = cast<float>(pos + m) * frequencies(clamp(k, 0, features - 1));
    angles_(k, m) = select(k % 2 == 0, sin(angle), cos(angle));
    output_(k, m) = in(k, m) + angles_(k, m);
    output(output_, {p.rows, p.features});
  }

  PositionalParams params_;
  Var k{"k"}, m{"m"}, d{"d"}, h{"h"}, r{"r"};
  Func angles_{"angles"}, output_{"output"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createPositional(const KernelDescription &kernel,
                               const ScheduleTarget &target) {
  return std::make_unique<Positional>(std::get<PositionalParams>(kernel.params),
                                      target);
}
