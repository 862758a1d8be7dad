//===- NibblePairDot.cpp - Nibble pair products as vpmaddubsw -------------===//
//
// The Q4_0 projection over int8 inputs (tfm-cpu-lower-projections)
// computes, per byte of packed quants and lane, the 16-bit
//
//   (byte & 15) * lo + (byte >> 4) * hi
//
// with `lo` and `hi` the int8 inputs of the byte's two columns: one lane of
// AVX2's `vpmaddubsw`, which multiplies unsigned bytes with signed bytes and
// adds adjacent pairs into 16 bits. Vectorised, the form is widening
// multiplies of 16-bit lanes; here, in the kernels whose configuration
// asks for it (tfm-cpu-select-kernel-config: where the target has AVX2),
// each 16-bit lane becomes the pair (low nibble, high nibble) of bytes, the
// inputs the pair (lo, hi), and 16 lanes at a time go through the instruction.
// The sums never saturate (at most 2 * 15 * 128 in magnitude).
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/NibblePairDot.h"
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUNIBBLEPAIRDOT
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

constexpr int64_t kLanes = 16;

/// `value` is a constant (a splat, for vectors) equal to `expected`.
bool isSplat(Value value, int64_t expected) {
  return getConstantIntValue(value) == expected;
}

/// The i8 vector `x` when `value` is `extsi(x)` to i16 lanes.
Value signExtendedBytes(Value value) {
  auto ext = value.getDefiningOp<arith::ExtSIOp>();
  if (!ext || !getElementTypeOrSelf(ext.getIn().getType()).isInteger(8))
    return Value();
  return ext.getIn();
}

/// One product `nibble * extsi(input)`: the nibble's widened byte vector
/// and whether it is the high nibble.
struct NibbleProduct {
  Value widenedBytes;
  bool high = false;
  Value input;
};

std::optional<NibbleProduct> matchNibbleProduct(Value value) {
  auto mul = value.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [nibble, other] : {std::pair(mul.getLhs(), mul.getRhs()),
                               std::pair(mul.getRhs(), mul.getLhs())}) {
    Value input = signExtendedBytes(other);
    if (!input)
      continue;
    NibbleProduct product;
    product.input = input;
    if (auto low = nibble.getDefiningOp<arith::AndIOp>();
        low && isSplat(low.getRhs(), 15)) {
      product.widenedBytes = low.getLhs();
    } else if (auto high = nibble.getDefiningOp<arith::ShRUIOp>();
               high && isSplat(high.getRhs(), 4)) {
      product.widenedBytes = high.getLhs();
      product.high = true;
    } else {
      continue;
    }
    auto widen = product.widenedBytes.getDefiningOp<arith::ExtUIOp>();
    if (!widen || !getElementTypeOrSelf(widen.getIn().getType()).isInteger(8))
      continue;
    return product;
  }
  return std::nullopt;
}

/// `x` when `low` is `trunci(x)` and `high` is `trunci(x >> 8)` of the same
/// 16-bit `x`: the two bytes of x.
Value packedPair(Value low, Value high) {
  auto lowTrunc = low.getDefiningOp<arith::TruncIOp>();
  auto highTrunc = high.getDefiningOp<arith::TruncIOp>();
  if (!lowTrunc || !highTrunc)
    return Value();
  auto shift = highTrunc.getIn().getDefiningOp<arith::ShRUIOp>();
  if (!shift || shift.getLhs() != lowTrunc.getIn() ||
      !isSplat(shift.getRhs(), 8))
    return Value();
  return lowTrunc.getIn();
}

/// Whether the kernel holding `op` asks for vpmaddubsw (its configuration's
/// `dot`).
bool requested(Operation *op) {
  mlir::tfm::cpu::ProjectionConfigAttr config =
      mlir::tfm::cpu::getEnclosingProjectionConfig(op);
  return config &&
         config.getDot() == mlir::tfm::cpu::DotInstruction::vpmaddubsw;
}

struct NibblePairDotToPmaddubsw : OpRewritePattern<arith::AddIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::AddIOp add,
                                PatternRewriter &rewriter) const override {
    if (!requested(add))
      return failure();
    auto type = dyn_cast<VectorType>(add.getType());
    if (!type || !type.getElementType().isInteger(16) || type.isScalable() ||
        type.getNumElements() % kLanes != 0)
      return failure();
    std::optional<NibbleProduct> first = matchNibbleProduct(add.getLhs());
    std::optional<NibbleProduct> second = matchNibbleProduct(add.getRhs());
    if (!first || !second || first->high == second->high ||
        first->widenedBytes != second->widenedBytes)
      return failure();
    const NibbleProduct &low = first->high ? *second : *first;
    const NibbleProduct &high = first->high ? *first : *second;

    Location loc = add.getLoc();
    auto splat = [&](int64_t value) {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(type, rewriter.getI16IntegerAttr(value)));
    };
    // Byte 2k of lane k is its low nibble, byte 2k + 1 its high nibble
    // (little-endian lanes); the inputs pair the same way.
    Value bytes = low.widenedBytes;
    Value pairs = arith::AndIOp::create(
        rewriter, loc,
        arith::OrIOp::create(
            rewriter, loc, bytes,
            arith::ShLIOp::create(rewriter, loc, bytes, splat(4))),
        splat(0x0F0F));
    // Inputs that are the two bytes of one 16-bit vector already (the
    // lowering's pairs) are used as they are.
    Value inputs = packedPair(low.input, high.input);
    if (!inputs) {
      Value lowInput = arith::ExtUIOp::create(rewriter, loc, type, low.input);
      Value highInput = arith::ExtUIOp::create(rewriter, loc, type, high.input);
      inputs = arith::OrIOp::create(
          rewriter, loc, lowInput,
          arith::ShLIOp::create(rewriter, loc, highInput, splat(8)));
    }

    int64_t count = type.getNumElements();
    auto flat = VectorType::get({count}, rewriter.getI16Type());
    auto flatBytes = VectorType::get({2 * count}, rewriter.getI8Type());
    auto asBytes = [&](Value value) {
      Value line = vector::ShapeCastOp::create(rewriter, loc, flat, value);
      return vector::BitCastOp::create(rewriter, loc, flatBytes, line);
    };
    Value pairBytes = asBytes(pairs), inputBytes = asBytes(inputs);
    auto sums = VectorType::get({kLanes}, rewriter.getI16Type());
    Value result = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(flat, rewriter.getI16IntegerAttr(0)));
    for (int64_t offset = 0; offset < count; offset += kLanes) {
      auto slice = [&](Value value) {
        return vector::ExtractStridedSliceOp::create(
            rewriter, loc, value, ArrayRef<int64_t>{2 * offset},
            ArrayRef<int64_t>{2 * kLanes}, ArrayRef<int64_t>{1});
      };
      Value a = slice(pairBytes), b = slice(inputBytes);
      auto call = LLVM::CallIntrinsicOp::create(
          rewriter, loc, Type(sums),
          rewriter.getStringAttr("llvm.x86.avx2.pmadd.ub.sw"),
          ValueRange{a, b});
      result = vector::InsertStridedSliceOp::create(
          rewriter, loc, call.getResult(0), result, ArrayRef<int64_t>{offset},
          ArrayRef<int64_t>{1});
    }
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(add, type, result);
    return success();
  }
};

struct TfmCpuNibblePairDot
    : mlir::tfm::impl::TfmCpuNibblePairDotBase<TfmCpuNibblePairDot> {
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
    mlir::tfm::populateNibblePairDotPatterns(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::tfm::populateNibblePairDotPatterns(RewritePatternSet &patterns) {
  patterns.add<NibblePairDotToPmaddubsw>(patterns.getContext());
}
