//===- Bf16PairDot.cpp - Products of bf16 pairs as vdpbf16ps --------------===//
//
// The projections over bf16 panels and bf16 inputs compute, per output
// lane, with `x` a 32-bit lane holding the bf16 inputs of two consecutive
// features and `w0`, `w1` the bf16 weights of those features,
//
//   acc + (ext(w1) * hi(x) + ext(w0) * lo(x))
//
// where `lo(x)` is the low bf16 widened to f32 (`bitcast(x << 16)`) and
// `hi(x)` the high one (`bitcast(x & 0xFFFF0000)`). That is one lane of
// AVX512_BF16's `vdpbf16ps`, which multiplies the bf16 pairs of two
// vectors lane by lane and adds both products to an f32 accumulator.
// Vectorised, the form is two widenings, two multiplications and two
// additions per lane; here, in the kernels whose configuration asks for it
// (tfm-cpu-select-kernel-config: where the target has AVX512_BF16), it
// becomes
// the instruction on `x` as it is and on `w0` and `w1` interleaved into
// pairs. A bf16 times a bf16 is exact in f32, so the two differ only in
// the roundings of the additions (the instruction adds the odd product,
// then the even one, to the accumulator) and in the denormals, which the
// instruction flushes to zero.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/Bf16PairDot.h"
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/CPU/VectorSlices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUBF16PAIRDOT
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// One bf16 of each 32-bit lane of `pairs`, widened to f32.
struct PairHalf {
  Value pairs;
  bool high = false;
};

/// `value` as `bitcast(pairs & 0xFFFF0000)` (the high bf16) or
/// `bitcast(pairs << 16)` (the low one) of i32 lanes.
std::optional<PairHalf> matchPairHalf(Value value) {
  auto cast = value.getDefiningOp<arith::BitcastOp>();
  if (!cast || !getElementTypeOrSelf(cast.getType()).isF32())
    return std::nullopt;
  Operation *op = cast.getIn().getDefiningOp();
  if (!op || op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> constant = getConstantIntValue(op->getOperand(1));
  if (isa<arith::AndIOp>(op) && constant == -65536)
    return PairHalf{op->getOperand(0), /*high=*/true};
  if (isa<arith::ShLIOp>(op) && constant == 16)
    return PairHalf{op->getOperand(0), /*high=*/false};
  return std::nullopt;
}

/// A product `ext(w) * half(x)` of a bf16 weight and one half of a pair.
struct PairProduct {
  Value weights; ///< bf16
  PairHalf input;
};

std::optional<PairProduct> matchProduct(Value value) {
  auto mul = value.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  for (auto [weightSide, inputSide] : {std::pair(mul.getLhs(), mul.getRhs()),
                                       std::pair(mul.getRhs(), mul.getLhs())}) {
    auto widen = weightSide.getDefiningOp<arith::ExtFOp>();
    if (!widen || !getElementTypeOrSelf(widen.getIn().getType()).isBF16())
      continue;
    if (std::optional<PairHalf> half = matchPairHalf(inputSide))
      return PairProduct{widen.getIn(), *half};
  }
  return std::nullopt;
}

/// `ext(w1) * hi(x) + ext(w0) * lo(x)`: one lane of the bf16 dot product.
struct PairSum {
  Value evenWeights; ///< w0, the low halves' weights
  Value oddWeights;  ///< w1
  Value pairs;       ///< x
};

std::optional<PairSum> matchPairSum(Value value) {
  if (auto reshape = value.getDefiningOp<vector::ShapeCastOp>())
    value = reshape.getSource();
  auto add = value.getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  std::optional<PairProduct> first = matchProduct(add.getLhs());
  std::optional<PairProduct> second = matchProduct(add.getRhs());
  if (!first || !second || first->input.pairs != second->input.pairs ||
      first->input.high == second->input.high)
    return std::nullopt;
  if (first->input.high)
    std::swap(first, second);
  return PairSum{first->weights, second->weights, first->input.pairs};
}

/// Whether the kernel holding `op` asks for vdpbf16ps (its configuration's
/// `dot`).
bool requested(Operation *op) {
  mlir::tfm::cpu::ProjectionConfigAttr config =
      mlir::tfm::cpu::getEnclosingProjectionConfig(op);
  return config && config.getDot() == mlir::tfm::cpu::DotInstruction::vdpbf16ps;
}

struct Bf16PairDotToVdpbf16ps : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    if (!requested(add))
      return failure();
    auto type = dyn_cast<VectorType>(add.getType());
    if (!type || type.isScalable())
      return failure();
    int64_t count = type.getNumElements();
    // 16 lanes an instruction (zmm), 8 for a vector of 8 (ymm).
    int64_t lanes = count % 16 == 0 ? 16 : count % 8 == 0 ? 8 : 0;
    if (!lanes)
      return failure();
    Value accumulator;
    std::optional<PairSum> pair;
    for (auto [sum, other] : {std::pair(add.getLhs(), add.getRhs()),
                              std::pair(add.getRhs(), add.getLhs())}) {
      if ((pair = matchPairSum(sum))) {
        accumulator = other;
        break;
      }
    }
    if (!pair)
      return failure();
    for (Value operand : {pair->evenWeights, pair->oddWeights, pair->pairs})
      if (cast<VectorType>(operand.getType()).getNumElements() != count)
        return failure();

    Location loc = add.getLoc();
    auto flatten = [&](Value value, Type element) -> Value {
      return vector::ShapeCastOp::create(
          rewriter, loc, VectorType::get({count}, element), value);
    };
    Type f32 = rewriter.getF32Type(), bf16 = rewriter.getBF16Type();
    Value even = flatten(pair->evenWeights, bf16);
    Value odd = flatten(pair->oddWeights, bf16);
    Value pairs = flatten(pair->pairs, rewriter.getI32Type());
    Value flatAccumulator = flatten(accumulator, f32);
    auto sliceType = VectorType::get({lanes}, f32);
    auto pairsType = VectorType::get({2 * lanes}, bf16);
    StringRef intrinsic = lanes == 16 ? "llvm.x86.avx512bf16.dpbf16ps.512"
                                      : "llvm.x86.avx512bf16.dpbf16ps.256";
    Value result = mlir::tfm::updateInSlices(
        rewriter, loc, flatAccumulator, lanes,
        [&](function_ref<Value(Value)> sliceOf) -> Value {
          // Lane i of the weights' pairs: w0[i] in its low half, w1[i] in
          // its high half, as lane i of the input pairs.
          Value evenSlice = sliceOf(even);
          Value oddSlice = sliceOf(odd);
          Value weightPairs =
              vector::InterleaveOp::create(rewriter, loc, evenSlice, oddSlice);
          Value inputPairs = vector::BitCastOp::create(rewriter, loc, pairsType,
                                                       sliceOf(pairs));
          return LLVM::CallIntrinsicOp::create(
                     rewriter, loc, Type(sliceType),
                     rewriter.getStringAttr(intrinsic),
                     ValueRange{sliceOf(flatAccumulator), weightPairs,
                                inputPairs})
              .getResult(0);
        });
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(add, type, result);
    return success();
  }
};

struct TfmCpuBf16PairDot
    : mlir::tfm::impl::TfmCpuBf16PairDotBase<TfmCpuBf16PairDot> {
  void runOnOperation() override {
    // Only functions with a kernel that asks for the instruction.
    WalkResult asked = getOperation()->walk([](Operation *op) {
      return mlir::tfm::cpu::getProjectionConfig(op) && requested(op)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (!asked.wasInterrupted())
      return;
    RewritePatternSet patterns(&getContext());
    mlir::tfm::populateBf16PairDotPatterns(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::tfm::populateBf16PairDotPatterns(RewritePatternSet &patterns) {
  patterns.add<Bf16PairDotToVdpbf16ps>(patterns.getContext());
}
