//===- Math.cpp - Scalar math shared by the kernel kinds ------------------===//
#include "compiler/backends/halide/gen/Math.h"

using namespace Halide;
using namespace tfmc::halide;

Expr tfmc::halide::halfToFloat(Expr bits, bool native) {
  if (native)
    return cast<float>(reinterpret(Float(16), cast<uint16_t>(bits)));
  // The half's exponent and mantissa shifted into an f32's are the value
  // times 2^-112 (subnormal halves become f32 subnormals), so one multiply
  // by 2^112 rescales them exactly; exponent 31 (infinity, NaN) maps to
  // 255 instead. A few vector integer operations, where Halide 14's own
  // conversion on x86 takes about twice as many (it does not use F16C).
  auto u32 = [](uint32_t value) { return Expr(value); };
  Expr h = cast<uint32_t>(bits);
  Expr magnitude = (h & u32(0x7fff)) << 13;
  Expr sign = (h & u32(0x8000)) << 16;
  Expr finite = reinterpret<float>(magnitude) * 5.192296858534828e33f;
  Expr infOrNan = reinterpret<float>(magnitude | u32(0x7f800000));
  Expr value = select(magnitude >= u32(0x0f800000), infOrNan, finite);
  return reinterpret<float>(reinterpret<uint32_t>(value) | sign);
}

Expr tfmc::halide::bfloat16ToFloat(Expr bits) {
  return reinterpret<float>(cast<uint32_t>(bits) << 16);
}

Expr tfmc::halide::erfcApprox(Expr x) {
  Expr z = abs(x);
  Expr t = 1.0f / (1.0f + 0.5f * z);
  Expr poly = -1.26551223f +
              t * (1.00002368f +
                   t * (0.37409196f +
                        t * (0.09678418f +
                             t * (-0.18628806f +
                                  t * (0.27886807f +
                                       t * (-1.13520398f +
                                            t * (1.48851587f +
                                                 t * (-0.82215223f +
                                                      t * 0.17087277f))))))));
  // exp(-z^2 + poly) underflows to 0 for large z, as erfc does.
  Expr tail = t * exp(max(-z * z + poly, -100.0f));
  return select(x >= 0.0f, tail, 2.0f - tail);
}

Expr tfmc::halide::activate(Activation activation, Expr x) {
  switch (activation) {
  case Activation::None:
    return x;
  case Activation::Relu:
    return max(x, 0.0f);
  case Activation::Silu:
    // x * sigmoid(x); the exponent is clamped so that exp never overflows
    // (the code is compiled without infinities).
    return x / (1.0f + exp(min(-x, 80.0f)));
  case Activation::GeluTanh: {
    // 0.5 * x * (1 + tanh(y)) is x * sigmoid(2y): no cancellation, and a
    // vectorised exp instead of a libm tanh call per lane.
    Expr y = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return x / (1.0f + exp(min(-2.0f * y, 80.0f)));
  }
  case Activation::GeluErf:
    return 0.5f * x * erfcApprox(-x * 0.7071067811865476f);
  }
  return x;
}

Expr tfmc::halide::softCap(Expr x, float cap) {
  return cap * Halide::tanh(x / cap);
}

NormFuncs tfmc::halide::defineNorm(const NormDescription &norm, Func input,
                                   int64_t features, Func weight, Func bias) {
  NormFuncs f;
  Var k("k"), m("m");
  f.r = RDom(0, static_cast<int>(features), "norm_r");
  const float count = static_cast<float>(features);
  const float eps = static_cast<float>(norm.eps);
  if (norm.type == NormType::LayerNorm) {
    // Two passes (mean, then the biased variance around it), as PyTorch.
    f.sum(m) = 0.0f;
    f.sum(m) += input(f.r, m);
    Expr mean = f.sum(m) / count;
    f.sumSquares(m) = 0.0f;
    Expr centered = input(f.r, m) - f.sum(m) / count;
    f.sumSquares(m) += centered * centered;
    f.stats(m) = {mean, 1.0f / sqrt(f.sumSquares(m) / count + eps)};
  } else {
    f.sum(m) = 0.0f;
    f.sumSquares(m) = 0.0f;
    f.sumSquares(m) += input(f.r, m) * input(f.r, m);
    f.stats(m) = {0.0f, 1.0f / sqrt(f.sumSquares(m) / count + eps)};
  }
  Expr scale = norm.unitOffset ? 1.0f + weight(k) : weight(k);
  Expr y = (input(k, m) - f.stats(m)[0]) * f.stats(m)[1] * scale;
  if (norm.type == NormType::LayerNorm && norm.bias)
    y += bias(k);
  f.normalized(k, m) = y;
  return f;
}
