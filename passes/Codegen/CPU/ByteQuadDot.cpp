//===- ByteQuadDot.cpp - Byte quad products as vpdpbusd -------------------===//
//
// The Q8_0 projection over int8 inputs (the q8_0x4 panels) computes, per
// 32-bit lane of quants `w` and inputs `x`, each holding four bytes,
//
//   acc + sum_t zext(byte_t(w) ^ 0x80) * sext(byte_t(x))
//
// (a quant plus 128 as an unsigned byte, times a signed input byte): one
// lane of VNNI's `vpdpbusd`, which multiplies unsigned bytes with signed
// bytes and adds each lane's four products to its 32-bit accumulator
// without saturating. Vectorised, the form is shifts, truncations and
// 32-bit multiplies; here, where the target has AVX-512 VNNI (16 lanes an
// instruction) or AVX-VNNI (8), it becomes the instruction on the quants
// with their top bits flipped once per lane and the inputs as they are.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/ByteQuadDot.h"
#include "dialect/TfmContracts.h"
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUBYTEQUADDOT
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// Byte `index` (0 = lowest) of the 32-bit lanes of `lanes`.
struct LaneByte {
  Value lanes;
  int64_t index = 0;
};

/// `value` as `trunci(lanes >> 8 * index)` to i8 of 32-bit lanes.
std::optional<LaneByte> matchLaneByte(Value value) {
  auto trunc = value.getDefiningOp<arith::TruncIOp>();
  if (!trunc || !getElementTypeOrSelf(trunc.getType()).isInteger(8) ||
      !getElementTypeOrSelf(trunc.getIn().getType()).isInteger(32))
    return std::nullopt;
  Value source = trunc.getIn();
  auto shift = source.getDefiningOp<arith::ShRUIOp>();
  if (!shift)
    return LaneByte{source, 0};
  std::optional<int64_t> amount = getConstantIntValue(shift.getRhs());
  if (!amount || (*amount != 8 && *amount != 16 && *amount != 24))
    return std::nullopt;
  return LaneByte{shift.getLhs(), *amount / 8};
}

/// One product `zext(byte_t(w) ^ 0x80) * sext(byte_t(x))`.
struct BiasedByteProduct {
  Value quants; ///< w
  Value inputs; ///< x
  int64_t index = 0;
};

std::optional<BiasedByteProduct> matchProduct(Value value) {
  auto mul = value.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [unsignedSide, signedSide] :
       {std::pair(mul.getLhs(), mul.getRhs()),
        std::pair(mul.getRhs(), mul.getLhs())}) {
    auto widenQuant = unsignedSide.getDefiningOp<arith::ExtUIOp>();
    auto widenInput = signedSide.getDefiningOp<arith::ExtSIOp>();
    if (!widenQuant || !widenInput)
      continue;
    auto flip = widenQuant.getIn().getDefiningOp<arith::XOrIOp>();
    if (!flip || getConstantIntValue(flip.getRhs()) != -128)
      continue;
    std::optional<LaneByte> quant = matchLaneByte(flip.getLhs());
    std::optional<LaneByte> input = matchLaneByte(widenInput.getIn());
    if (!quant || !input || quant->index != input->index)
      continue;
    return BiasedByteProduct{quant->lanes, input->lanes, quant->index};
  }
  return std::nullopt;
}

/// The quants and inputs when `value` is a sum (a tree of `addi`) of the
/// four products of one lane's bytes 0..3, or such a sum reshaped (a
/// register tile of several rows drops unit dimensions before adding it to
/// its accumulator).
std::optional<std::pair<Value, Value>> matchQuadSum(Value value) {
  if (auto reshape = value.getDefiningOp<vector::ShapeCastOp>())
    value = reshape.getSource();
  SmallVector<Value> pending = {value}, leaves;
  while (!pending.empty()) {
    Value next = pending.pop_back_val();
    auto add = next.getDefiningOp<arith::AddIOp>();
    if (add && leaves.size() + pending.size() < 4) {
      pending.push_back(add.getLhs());
      pending.push_back(add.getRhs());
      continue;
    }
    leaves.push_back(next);
  }
  if (leaves.size() != 4)
    return std::nullopt;
  Value quants, inputs;
  unsigned seen = 0;
  for (Value leaf : leaves) {
    std::optional<BiasedByteProduct> product = matchProduct(leaf);
    if (!product ||
        (quants && (product->quants != quants || product->inputs != inputs)))
      return std::nullopt;
    quants = product->quants;
    inputs = product->inputs;
    seen |= 1u << product->index;
  }
  if (seen != 0b1111)
    return std::nullopt;
  return std::pair(quants, inputs);
}

struct ByteQuadDotToVpdpbusd : OpRewritePattern<arith::AddIOp> {
  ByteQuadDotToVpdpbusd(MLIRContext *context, int64_t lanes)
      : OpRewritePattern(context), lanes(lanes) {}

  LogicalResult matchAndRewrite(arith::AddIOp add,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(add.getType());
    if (!type || !type.getElementType().isInteger(32) || type.isScalable() ||
        type.getNumElements() % lanes != 0)
      return failure();
    Value accumulator, quants, inputs;
    for (auto [sum, other] : {std::pair(add.getLhs(), add.getRhs()),
                              std::pair(add.getRhs(), add.getLhs())}) {
      if (std::optional<std::pair<Value, Value>> quad = matchQuadSum(sum)) {
        std::tie(quants, inputs) = *quad;
        accumulator = other;
        break;
      }
    }
    if (!accumulator)
      return failure();

    Location loc = add.getLoc();
    int64_t count = type.getNumElements();
    auto flat = VectorType::get({count}, rewriter.getI32Type());
    auto flatten = [&](Value value) {
      return vector::ShapeCastOp::create(rewriter, loc, flat, value);
    };
    // Every byte's top bit flipped: the quants plus 128, unsigned.
    Value biased = arith::XOrIOp::create(
        rewriter, loc, flatten(quants),
        arith::ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(flat,
                                   rewriter.getI32IntegerAttr(
                                       static_cast<int32_t>(0x80808080u)))));
    Value flatInputs = flatten(inputs), flatAccumulator = flatten(accumulator);
    auto sliceType = VectorType::get({lanes}, rewriter.getI32Type());
    auto bytesType = VectorType::get({4 * lanes}, rewriter.getI8Type());
    StringRef intrinsic = lanes == 16 ? "llvm.x86.avx512.vpdpbusd.512"
                                      : "llvm.x86.avx512.vpdpbusd.256";
    Value result = flatAccumulator;
    for (int64_t offset = 0; offset < count; offset += lanes) {
      auto slice = [&](Value value) -> Value {
        if (count == lanes)
          return value;
        return vector::ExtractStridedSliceOp::create(
            rewriter, loc, value, ArrayRef<int64_t>{offset},
            ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
      };
      auto asBytes = [&](Value value) {
        return vector::BitCastOp::create(rewriter, loc, bytesType,
                                         slice(value));
      };
      auto call = LLVM::CallIntrinsicOp::create(
          rewriter, loc, Type(sliceType), rewriter.getStringAttr(intrinsic),
          ValueRange{slice(flatAccumulator), asBytes(biased),
                     asBytes(flatInputs)});
      result = count == lanes
                   ? call.getResult(0)
                   : vector::InsertStridedSliceOp::create(
                         rewriter, loc, call.getResult(0), result,
                         ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{1})
                         .getResult();
    }
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(add, type, result);
    return success();
  }

  int64_t lanes;
};

struct TfmCpuByteQuadDot
    : mlir::tfm::impl::TfmCpuByteQuadDotBase<TfmCpuByteQuadDot> {
  void runOnOperation() override {
    mlir::tfm::TargetAttr target = mlir::tfm::getTarget(getOperation());
    int64_t lanes = 0;
    if (mlir::tfm::hasTargetFeature(target, "+avx512vnni"))
      lanes = 16;
    else if (mlir::tfm::hasTargetFeature(target, "+avxvnni"))
      lanes = 8;
    if (!lanes)
      return;
    RewritePatternSet patterns(&getContext());
    mlir::tfm::populateByteQuadDotPatterns(patterns, lanes);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::tfm::populateByteQuadDotPatterns(RewritePatternSet &patterns,
                                            int64_t lanes) {
  patterns.add<ByteQuadDotToVpdpbusd>(patterns.getContext(), lanes);
}
