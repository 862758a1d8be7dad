//===- Checks.cpp - Each kernel kind against its reference ----------------===//
//
// The references follow tfm's op semantics (dialect/TfmOps.td) in double;
// where tfmc's LLVM backend fixes an f32 detail (RoPE's and the sinusoidal
// encodings' frequencies and angles) the reference takes it the same way.
//
//===----------------------------------------------------------------------===//
#include "test/halide/harness/Checks.h"

#include "compiler/weights/ElementType.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

using namespace tfmc::halide;
using namespace tfmc::halide::harness;

namespace {

double activate(Activation activation, double x) {
  switch (activation) {
  case Activation::None:
    return x;
  case Activation::Relu:
    return std::max(x, 0.0);
  case Activation::Silu:
    return x / (1.0 + std::exp(-x));
  case Activation::GeluTanh:
    return 0.5 * x *
           (1.0 +
            std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  case Activation::GeluErf:
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  }
  return x;
}

/// Row m of `x` [rows, features] normalised as `norm` says.
std::vector<double> normalize(const NormDescription &norm,
                              const std::vector<float> &x, int64_t rows,
                              int64_t features,
                              const std::vector<float> &weight,
                              const std::vector<float> &bias) {
  std::vector<double> out(rows * features);
  for (int64_t m = 0; m < rows; ++m) {
    const float *row = &x[m * features];
    double mean = 0, var = 0;
    if (norm.type == NormType::LayerNorm) {
      for (int64_t k = 0; k < features; ++k)
        mean += row[k];
      mean /= features;
    }
    for (int64_t k = 0; k < features; ++k)
      var += (row[k] - mean) * (row[k] - mean);
    var /= features;
    double inv = 1.0 / std::sqrt(var + norm.eps);
    for (int64_t k = 0; k < features; ++k) {
      double scale = norm.unitOffset ? 1.0 + weight[k] : weight[k];
      double y = (row[k] - mean) * inv * scale;
      if (norm.bias)
        y += bias[k];
      out[m * features + k] = y;
    }
  }
  return out;
}

/// The projection family: projection, LM head and the router of MoE
/// routing share the same inputs.
struct MatVecCase {
  int64_t rows, in, out, groups = 1;
  WeightType weight;
  NormDescription prologue;
  bool bias = false, gated = false, residual = false;
  Activation activation = Activation::None;
  const char *weightName = "weight";
  const char *outputName = "output";
};

/// Fills the inputs of `c` into `args`; returns the normalised input rows
/// and the weight.
struct MatVecInputs {
  std::vector<float> input, normWeight, normBias, bias, residual;
  StoredMatrix weight;
};

MatVecInputs fillMatVec(const MatVecCase &c, Random &random, Arguments &args) {
  MatVecInputs in;
  in.input = randomTensor(random, c.rows * c.in, -1.0f, 1.0f);
  args.addFloats("input", {c.rows, c.in}, in.input);
  if (c.prologue.type != NormType::None) {
    in.normWeight = randomTensor(random, c.in, 0.5f, 1.5f);
    args.addFloats("norm_weight", {c.in}, in.normWeight);
    if (c.prologue.bias) {
      in.normBias = randomTensor(random, c.in, -0.5f, 0.5f);
      args.addFloats("norm_bias", {c.in}, in.normBias);
    }
  }
  in.weight = randomMatrix(random, c.weight, c.groups * c.out, c.in,
                           1.0f / std::sqrt(static_cast<float>(c.in)));
  args.addMatrix(c.weightName, in.weight);
  if (c.bias) {
    in.bias = randomTensor(random, c.groups * c.out, -0.5f, 0.5f);
    args.addFloats("bias", {c.groups * c.out}, in.bias);
  }
  if (c.residual) {
    in.residual = randomTensor(random, c.rows * c.out, -1.0f, 1.0f);
    args.addFloats("residual", {c.rows, c.out}, in.residual);
  }
  return in;
}

/// The reference of `c` on `in`, [rows, out].
std::vector<double> referenceMatVec(const MatVecCase &c,
                                    const MatVecInputs &in) {
  std::vector<double> x(in.input.begin(), in.input.end());
  if (c.prologue.type != NormType::None)
    x = normalize(c.prologue, in.input, c.rows, c.in, in.normWeight,
                  in.normBias);
  std::vector<double> out(c.rows * c.out);
  for (int64_t m = 0; m < c.rows; ++m)
    for (int64_t o = 0; o < c.out; ++o) {
      double sums[2] = {0, 0};
      for (int64_t g = 0; g < c.groups; ++g) {
        for (int64_t k = 0; k < c.in; ++k)
          sums[g] += x[m * c.in + k] * in.weight.at(g * c.out + o, k);
        if (c.bias)
          sums[g] += in.bias[g * c.out + o];
      }
      double y = activate(c.activation, sums[0]);
      if (c.gated)
        y *= sums[1];
      if (c.residual)
        y += in.residual[m * c.out + o];
      out[m * c.out + o] = y;
    }
  return out;
}

bool checkMatVec(const MatVecCase &c, const Options &options,
                 const Invoke &invoke) {
  Random random(options.seed);
  Arguments args;
  MatVecInputs in = fillMatVec(c, random, args);
  args.add(c.outputName, halide_type_t(halide_type_float, 32), {c.rows, c.out});
  invoke(args);
  bool ok = compare(c.outputName, args.floats(c.outputName),
                    referenceMatVec(c, in), options.tolerance);
  if (!options.exactWeights)
    return ok;
  if (c.prologue.type != NormType::None || c.bias || c.gated || c.residual ||
      c.activation != Activation::None) {
    std::printf("--exact-weights needs a projection without prologue or "
                "epilogue: FAIL\n");
    return false;
  }
  // One-hot rows read single weights: output (m, o) of the call at
  // `offset` is weight (o, offset + m), exactly.
  std::vector<float> got, want;
  for (int64_t offset = 0; offset < c.in; offset += c.rows) {
    std::vector<float> oneHot(c.rows * c.in, 0.0f);
    for (int64_t m = 0; m < c.rows && offset + m < c.in; ++m)
      oneHot[m * c.in + offset + m] = 1.0f;
    args.addFloats("input", {c.rows, c.in}, oneHot);
    invoke(args);
    const float *out = args.floats(c.outputName);
    for (int64_t m = 0; m < c.rows && offset + m < c.in; ++m)
      for (int64_t o = 0; o < c.out; ++o) {
        got.push_back(out[m * c.out + o]);
        want.push_back(in.weight.at(o, offset + m));
      }
  }
  return compareExact("weights read through one-hot rows", got.data(), want) &&
         ok;
}

bool checkAttention(const AttentionParams &p, const Options &options,
                    const Invoke &invoke) {
  Random random(options.seed);
  Arguments args;
  const int64_t rows = p.rows, heads = p.heads, kvHeads = p.kvHeads,
                dim = p.headDim, positions = p.positions;
  // By default past the first block and inside a later one.
  // A ring's default is past its second turn.
  int pos = options.pos >= 0 ? options.pos
            : p.ring         ? static_cast<int>(2 * positions + 5)
                             : static_cast<int>((positions - rows) * 2 / 3);
  // With a key count: fewer keys than rows + pos, the count of a padded
  // input (past the first block when there is more than one); for one
  // row, more, a cross-attention's source seen from an early position.
  const int keyCount = static_cast<int>(
      rows == 1 ? positions * 3 / 4
                : std::max<int64_t>(1, (pos + rows) -
                                           std::max<int64_t>(rows / 2, 1)));
  // The cache slots written so far (a ring's: every one past its first
  // turn).
  const int64_t limit = p.keyCount ? keyCount
                        : p.ring   ? std::min<int64_t>(pos + rows, positions)
                                   : pos + rows;
  // The slot of position t.
  auto slotOf = [&](int64_t t) { return p.ring ? t % positions : t; };
  std::vector<float> query = randomTensor(random, rows * heads * dim, -1, 1);
  args.addFloats("query", {rows, heads, dim}, query);
  // Positions not written yet hold NaN: a kernel that read them would
  // show it.
  std::vector<double> keys(kvHeads * positions * dim),
      values(kvHeads * positions * dim);
  halide_type_t cacheType = p.cache == CacheType::F16
                                ? halide_type_t(halide_type_uint, 16)
                                : halide_type_t(halide_type_float, 32);
  for (const char *name : {"key_cache", "value_cache"}) {
    std::vector<double> &reference = name[0] == 'k' ? keys : values;
    Halide::Runtime::Buffer<> &buffer =
        args.add(name, cacheType, {kvHeads, positions, dim});
    for (int64_t i = 0; i < kvHeads * positions * dim; ++i) {
      bool written = (i / dim) % positions < limit;
      float value = written ? random.uniform(-1, 1)
                            : std::numeric_limits<float>::quiet_NaN();
      if (p.cache == CacheType::F16) {
        uint16_t bits = tfmc::weights::floatToHalf(value);
        static_cast<uint16_t *>(buffer.data())[i] = bits;
        value = tfmc::weights::halfToFloat(bits);
      } else {
        static_cast<float *>(buffer.data())[i] = value;
      }
      reference[i] = value;
    }
  }
  std::vector<float> slopes;
  if (p.alibi) {
    for (int64_t h = 0; h < heads; ++h)
      slopes.push_back(std::pow(2.0f, -8.0f * (h + 1) / heads));
    args.addFloats("slopes", {heads}, slopes);
  }
  std::vector<float> relativeTable;
  if (p.relativeBias) {
    relativeTable =
        randomTensor(random, p.relativeBias->buckets() * heads, -1, 1);
    args.addFloats("relative_bias", {p.relativeBias->buckets(), heads},
                   relativeTable);
  }
  // T5's bucket, as tfm's RelativeBuckets::bucketOf.
  auto bucketOf = [&](int64_t relative) {
    const RelativeBucketsDescription &buckets = *p.relativeBias;
    int64_t distance = buckets.bidirectional ? std::abs(relative)
                                             : std::max<int64_t>(-relative, 0);
    int64_t bucket =
        (buckets.bidirectional && relative > 0 ? buckets.side : 0) +
        std::min(distance, buckets.exact);
    for (int64_t step : buckets.steps)
      bucket += distance >= step ? 1 : 0;
    return bucket;
  };
  args.setScalar("pos", pos);
  if (p.keyCount)
    args.setScalar("keys", keyCount);
  args.add("output", halide_type_t(halide_type_float, 32), {rows, heads, dim});
  invoke(args);

  const double scale = p.scale ? *p.scale : 1.0 / std::sqrt(double(dim));
  std::vector<double> want(rows * heads * dim);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t h = 0; h < heads; ++h) {
      int64_t queryPos = pos + r, kv = h / (heads / kvHeads);
      int64_t first = 0, last = queryPos;
      if (p.mask == MaskKind::Bidirectional || p.keyCount)
        last = std::min<int64_t>(last, limit - 1);
      if (p.mask == MaskKind::Bidirectional)
        last = limit - 1;
      if (p.mask == MaskKind::SlidingWindow)
        first = std::max<int64_t>(0, queryPos - p.window + 1);
      std::vector<double> scores;
      double largest = -1e300;
      for (int64_t t = first; t <= last; ++t) {
        double s = 0;
        for (int64_t d = 0; d < dim; ++d)
          s += query[(r * heads + h) * dim + d] *
               keys[(kv * positions + slotOf(t)) * dim + d];
        s *= scale;
        if (p.softcap)
          s = *p.softcap * std::tanh(s / *p.softcap);
        if (p.alibi)
          s += slopes[h] * double(t - queryPos);
        if (p.relativeBias)
          s += relativeTable[bucketOf(t - queryPos) * heads + h];
        scores.push_back(s);
        largest = std::max(largest, s);
      }
      double total = 0;
      for (double &s : scores)
        total += (s = std::exp(s - largest));
      for (int64_t d = 0; d < dim; ++d) {
        double sum = 0;
        for (int64_t t = first; t <= last; ++t)
          sum += scores[t - first] *
                 values[(kv * positions + slotOf(t)) * dim + d];
        want[(r * heads + h) * dim + d] = sum / total;
      }
    }
  if (p.keyCount)
    std::printf("pos %d keys %d\n", pos, keyCount);
  else
    std::printf("pos %d\n", pos);
  return compare("output", args.floats("output"), want, options.tolerance);
}

bool checkNorm(const NormParams &p, const Options &options,
               const Invoke &invoke) {
  Random random(options.seed);
  Arguments args;
  std::vector<float> x = randomTensor(random, p.rows * p.features, -2, 3);
  // weight_groups vectors, row m scaled by vector m % weight_groups.
  const int64_t groups = p.weightGroups;
  std::vector<int64_t> vectorShape = {p.features};
  if (groups > 1)
    vectorShape = {groups, p.features};
  std::vector<float> weight =
      randomTensor(random, groups * p.features, 0.5f, 1.5f);
  std::vector<float> bias;
  args.addFloats("input", {p.rows, p.features}, x);
  args.addFloats("weight", vectorShape, weight);
  if (p.norm.bias) {
    bias = randomTensor(random, groups * p.features, -0.5f, 0.5f);
    args.addFloats("bias", vectorShape, bias);
  }
  args.add("output", halide_type_t(halide_type_float, 32),
           {p.rows, p.features});
  invoke(args);
  std::vector<double> want;
  for (int64_t m = 0; m < p.rows; ++m) {
    int64_t begin = (m % groups) * p.features, end = begin + p.features;
    std::vector<float> row(x.begin() + m * p.features,
                           x.begin() + (m + 1) * p.features);
    std::vector<float> rowWeight(weight.begin() + begin, weight.begin() + end);
    std::vector<float> rowBias;
    if (p.norm.bias)
      rowBias.assign(bias.begin() + begin, bias.begin() + end);
    std::vector<double> normed =
        normalize(p.norm, row, 1, p.features, rowWeight, rowBias);
    want.insert(want.end(), normed.begin(), normed.end());
  }
  return compare("output", args.floats("output"), want, options.tolerance);
}

bool checkPositional(const PositionalParams &p, const Options &options,
                     const Invoke &invoke) {
  Random random(options.seed);
  Arguments args;
  int pos = options.pos >= 0 ? options.pos : 37;
  switch (p.op) {
  case PositionalOp::Rope: {
    const int64_t rotary = p.rotaryDim ? p.rotaryDim : p.headDim;
    const int64_t pairs = rotary / 2, dim = p.headDim;
    std::vector<float> x = randomTensor(random, p.rows * p.heads * dim, -1, 1);
    args.addFloats("input", {p.rows, p.heads, dim}, x);
    args.setScalar("pos", pos);
    args.add("output", halide_type_t(halide_type_float, 32),
             {p.rows, p.heads, dim});
    invoke(args);
    std::vector<double> want(x.begin(), x.end());
    const float theta = static_cast<float>(p.theta);
    for (int64_t r = 0; r < p.rows; ++r)
      for (int64_t i = 0; i < pairs; ++i) {
        // The frequency and the angle in f32, as tfmc computes them.
        float frequency =
            1.0f / std::pow(theta, static_cast<float>(2 * i) /
                                       static_cast<float>(rotary));
        float angle = static_cast<float>(pos + r) * frequency;
        double c = std::cos(double(angle)), s = std::sin(double(angle));
        for (int64_t h = 0; h < p.heads; ++h) {
          int64_t base = (r * p.heads + h) * dim;
          int64_t a = p.layout == RopeLayout::Interleaved ? 2 * i : i;
          int64_t b =
              p.layout == RopeLayout::Interleaved ? 2 * i + 1 : i + pairs;
          want[base + a] = x[base + a] * c - x[base + b] * s;
          want[base + b] = x[base + b] * c + x[base + a] * s;
        }
      }
    return compare("output", args.floats("output"), want, options.tolerance);
  }
  case PositionalOp::TokenEmbedding: {
    // Copied, never summed: the table also holds infinities and NaN.
    StoredMatrix table =
        randomMatrix(random, p.table, p.vocab, p.features, 1.0f, Specials::All);
    args.addMatrix("table", table);
    Halide::Runtime::Buffer<> &tokens =
        args.add("tokens", halide_type_t(halide_type_int, 32), {p.rows});
    std::vector<int32_t> ids;
    for (int64_t r = 0; r < p.rows; ++r)
      ids.push_back(random.integer(0, static_cast<int32_t>(p.vocab) - 1));
    // Out-of-range ids read the nearest row.
    ids[0] = -5;
    if (p.rows > 1)
      ids[1] = static_cast<int32_t>(p.vocab) + 3;
    // Row 0 holds the edge values of f16 and bf16 tables.
    if (p.rows > 2)
      ids[2] = 0;
    std::copy(ids.begin(), ids.end(), static_cast<int32_t *>(tokens.data()));
    args.add("output", halide_type_t(halide_type_float, 32),
             {p.rows, p.features});
    invoke(args);
    std::vector<float> want;
    for (int64_t r = 0; r < p.rows; ++r) {
      int64_t id = std::clamp<int64_t>(ids[r], 0, p.vocab - 1);
      for (int64_t k = 0; k < p.features; ++k)
        want.push_back(table.at(id, k) * static_cast<float>(p.scale));
    }
    // The row times an f32 scale: exactly what the kernel computes.
    return compareExact("output", args.floats("output"), want);
  }
  case PositionalOp::LearnedPosition: {
    if (options.pos < 0)
      pos = static_cast<int>(p.positions - p.rows);
    std::vector<float> x = randomTensor(random, p.rows * p.features, -1, 1);
    StoredMatrix table =
        randomMatrix(random, p.table, p.positions, p.features, 1.0f);
    args.addFloats("input", {p.rows, p.features}, x);
    args.addMatrix("table", table);
    args.setScalar("pos", pos);
    args.add("output", halide_type_t(halide_type_float, 32),
             {p.rows, p.features});
    invoke(args);
    std::vector<float> want;
    for (int64_t r = 0; r < p.rows; ++r)
      for (int64_t k = 0; k < p.features; ++k)
        want.push_back(x[r * p.features + k] + table.at(pos + r, k));
    return compareExact("output", args.floats("output"), want);
  }
  case PositionalOp::Sinusoidal: {
    std::vector<float> x = randomTensor(random, p.rows * p.features, -1, 1);
    args.addFloats("input", {p.rows, p.features}, x);
    args.setScalar("pos", pos);
    args.add("output", halide_type_t(halide_type_float, 32),
             {p.rows, p.features});
    invoke(args);
    const float step =
        static_cast<float>(-std::log(p.base) / static_cast<double>(p.features));
    std::vector<double> want;
    for (int64_t r = 0; r < p.rows; ++r)
      for (int64_t k = 0; k < p.features; ++k) {
        float frequency = std::exp(static_cast<float>(k - k % 2) * step);
        float angle = static_cast<float>(pos + r) * frequency;
        double encoding =
            k % 2 == 0 ? std::sin(double(angle)) : std::cos(double(angle));
        want.push_back(x[r * p.features + k] + encoding);
      }
    return compare("output", args.floats("output"), want, options.tolerance);
  }
  }
  return false;
}

bool checkElementwise(const ElementwiseParams &p, const Options &options,
                      const Invoke &invoke) {
  Random random(options.seed);
  Arguments args;
  const int64_t count = p.rows * p.features;
  std::vector<float> lhs = randomTensor(random, count, -6, 6);
  std::vector<float> rhs = randomTensor(random, count, -2, 2);
  args.addFloats("lhs", {p.rows, p.features}, lhs);
  bool binary = p.op == ElementwiseOp::Add || p.op == ElementwiseOp::Mul ||
                p.op == ElementwiseOp::SwiGlu || p.op == ElementwiseOp::GeGlu;
  if (binary)
    args.addFloats("rhs", {p.rows, p.features}, rhs);
  args.add("output", halide_type_t(halide_type_float, 32),
           {p.rows, p.features});
  invoke(args);
  std::vector<double> want(count);
  for (int64_t i = 0; i < count; ++i) {
    double a = lhs[i], b = rhs[i];
    switch (p.op) {
    case ElementwiseOp::Add:
      want[i] = a + b;
      break;
    case ElementwiseOp::Mul:
      want[i] = a * b;
      break;
    case ElementwiseOp::Relu:
      want[i] = activate(Activation::Relu, a);
      break;
    case ElementwiseOp::Silu:
      want[i] = activate(Activation::Silu, a);
      break;
    case ElementwiseOp::GeluTanh:
      want[i] = activate(Activation::GeluTanh, a);
      break;
    case ElementwiseOp::GeluErf:
      want[i] = activate(Activation::GeluErf, a);
      break;
    case ElementwiseOp::SwiGlu:
      want[i] = activate(Activation::Silu, a) * b;
      break;
    case ElementwiseOp::GeGlu:
      want[i] = activate(Activation::GeluTanh, a) * b;
      break;
    case ElementwiseOp::SoftCap:
      want[i] = p.cap * std::tanh(a / p.cap);
      break;
    }
  }
  return compare("output", args.floats("output"), want, options.tolerance);
}

bool checkMoeRouting(const MoeRoutingParams &p, const Options &options,
                     const Invoke &invoke) {
  Random random(options.seed);
  Arguments args;
  std::vector<double> logits(p.rows * p.experts);
  if (p.inFeatures > 0) {
    MatVecCase c{p.rows, p.inFeatures, p.experts, 1, p.router};
    c.weightName = "router";
    MatVecInputs in = fillMatVec(c, random, args);
    logits = referenceMatVec(c, in);
  } else {
    std::vector<float> values = randomTensor(random, p.rows * p.experts, -3, 3);
    if (options.ties)
      for (float &value : values)
        value = std::round(value * 2) / 2;
    args.addFloats("logits", {p.rows, p.experts}, values);
    std::copy(values.begin(), values.end(), logits.begin());
  }
  args.add("weights", halide_type_t(halide_type_float, 32), {p.rows, p.topK});
  args.add("experts", halide_type_t(halide_type_int, 32), {p.rows, p.topK});
  invoke(args);
  std::vector<double> want;
  size_t wrong = 0;
  const int32_t *experts =
      static_cast<const int32_t *>(args.buffer("experts").data());
  for (int64_t m = 0; m < p.rows; ++m) {
    const double *row = &logits[m * p.experts];
    std::vector<int> order(p.experts);
    std::iota(order.begin(), order.end(), 0);
    // Larger logits first, the lower index first among equal ones.
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return row[a] > row[b]; });
    double largest = row[order[0]], total = 0;
    for (int64_t e = 0; e < p.experts; ++e)
      if (p.routing == Routing::SoftmaxTopK || e < p.topK)
        total += std::exp(row[order[e]] - largest);
    for (int64_t i = 0; i < p.topK; ++i) {
      want.push_back(std::exp(row[order[i]] - largest) / total);
      if (experts[m * p.topK + i] != order[i])
        ++wrong;
    }
  }
  std::printf("experts: %zu of %zu choices differ: %s\n", wrong, want.size(),
              wrong ? "FAIL" : "ok");
  return compare("weights", args.floats("weights"), want, options.tolerance) &&
         !wrong;
}

bool checkMoeExperts(const MoeExpertsParams &p, const Options &options,
                     const Invoke &invoke) {
  Random random(options.seed);
  Arguments args;
  std::vector<float> input = randomTensor(random, p.rows * p.inFeatures, -1, 1);
  args.addFloats("input", {p.rows, p.inFeatures}, input);
  std::vector<float> weights = randomTensor(random, p.rows * p.topK, 0, 1);
  args.addFloats("weights", {p.rows, p.topK}, weights);
  // Every expert index, and past both ends (clamped to the nearest).
  Halide::Runtime::Buffer<> &chosenBuffer =
      args.add("experts", halide_type_t(halide_type_int, 32), {p.rows, p.topK});
  int32_t *chosen = static_cast<int32_t *>(chosenBuffer.data());
  for (int64_t i = 0; i < p.rows * p.topK; ++i)
    chosen[i] = random.integer(0, static_cast<int32_t>(p.experts) - 1);
  if (p.rows * p.topK >= 2) {
    chosen[0] = -1;
    chosen[p.rows * p.topK - 1] = static_cast<int32_t>(p.experts) + 2;
  }
  StoredMatrix gate =
      randomMatrix(random, p.gate, p.experts * p.hidden, p.inFeatures,
                   1.0f / std::sqrt(float(p.inFeatures)));
  StoredMatrix up =
      randomMatrix(random, p.up, p.experts * p.hidden, p.inFeatures,
                   1.0f / std::sqrt(float(p.inFeatures)));
  StoredMatrix down = randomMatrix(random, p.down, p.experts * p.inFeatures,
                                   p.hidden, 1.0f / std::sqrt(float(p.hidden)));
  args.addMatrix("gate", gate);
  args.addMatrix("up", up);
  args.addMatrix("down", down);
  args.add("output", halide_type_t(halide_type_float, 32),
           {p.rows, p.inFeatures});
  invoke(args);

  std::vector<double> want(p.rows * p.inFeatures, 0.0), inner(p.hidden);
  for (int64_t m = 0; m < p.rows; ++m) {
    const float *x = &input[m * p.inFeatures];
    for (int64_t c = 0; c < p.topK; ++c) {
      int64_t e = std::clamp<int64_t>(chosen[m * p.topK + c], 0, p.experts - 1);
      for (int64_t h = 0; h < p.hidden; ++h) {
        double g = 0, u = 0;
        for (int64_t k = 0; k < p.inFeatures; ++k) {
          g += double(x[k]) * gate.at(e * p.hidden + h, k);
          u += double(x[k]) * up.at(e * p.hidden + h, k);
        }
        inner[h] = activate(Activation::Silu, g) * u;
      }
      for (int64_t f = 0; f < p.inFeatures; ++f) {
        double sum = 0;
        for (int64_t h = 0; h < p.hidden; ++h)
          sum += inner[h] * down.at(e * p.inFeatures + f, h);
        want[m * p.inFeatures + f] += weights[m * p.topK + c] * sum;
      }
    }
  }
  return compare("output", args.floats("output"), want, options.tolerance);
}

} // namespace

bool tfmc::halide::harness::check(const KernelDescription &kernel,
                                  const Options &options,
                                  const Invoke &invoke) {
  switch (kernel.kind()) {
  case KernelKind::Projection: {
    const auto &p = std::get<ProjectionParams>(kernel.params);
    MatVecCase c{p.rows, p.inFeatures, p.outFeatures, p.gated ? 2 : 1,
                 p.weight};
    c.prologue = p.prologue;
    c.bias = p.bias;
    c.gated = p.gated;
    c.residual = p.residual;
    c.activation = p.activation;
    return checkMatVec(c, options, invoke);
  }
  case KernelKind::LmHead: {
    const auto &p = std::get<LmHeadParams>(kernel.params);
    MatVecCase c{p.rows, p.inFeatures, p.vocab, 1, p.weight};
    c.prologue = p.prologue;
    c.outputName = "logits";
    return checkMatVec(c, options, invoke);
  }
  case KernelKind::Attention:
    return checkAttention(std::get<AttentionParams>(kernel.params), options,
                          invoke);
  case KernelKind::Norm:
    return checkNorm(std::get<NormParams>(kernel.params), options, invoke);
  case KernelKind::Positional:
    return checkPositional(std::get<PositionalParams>(kernel.params), options,
                           invoke);
  case KernelKind::Elementwise:
    return checkElementwise(std::get<ElementwiseParams>(kernel.params), options,
                            invoke);
  case KernelKind::MoeRouting:
    return checkMoeRouting(std::get<MoeRoutingParams>(kernel.params), options,
                           invoke);
  case KernelKind::MoeExperts:
    return checkMoeExperts(std::get<MoeExpertsParams>(kernel.params), options,
                           invoke);
  }
  return false;
}
