//===- ByteQuadDot.cpp - Byte quad products as vpdpbusd or vpmaddubsw -----===//
//
// The projections over int8 inputs of the quad panels compute, per 32-bit
// lane of weights `w` and inputs `x`, each holding four bytes,
//
//   acc + sum_t zext(u_t(w)) * sext(byte_t(x))
//
// where `u_t(w)` is an unsigned byte made from byte t of w: the quant with
// its top bit flipped (q8_0x4: a quant plus 128), the byte's low or high
// nibble (q4_0x4, kquant4x4), or the byte as it is (kquantx4, whose quants
// are stored biased to unsigned bytes). That is one lane of VNNI's `vpdpbusd`,
// which multiplies unsigned bytes with signed bytes and adds each lane's four
// products to its 32-bit accumulator without saturating. Vectorised, the form
// is shifts, truncations and 32-bit multiplies; here, in the kernels whose
// configuration asks for it (tfm-cpu-select-kernel-config: where the target
// has AVX-512 VNNI, 16 lanes an instruction, or AVX-VNNI, 8), it becomes
// the instruction on the weight lanes transformed once, all four bytes at a
// time (an xor, or a mask after a shift, or nothing), and the inputs as
// they are. Where the target has AVX2 but no VNNI, the k-quants' quads
// (unsigned bytes below 64, so no pair of products saturates 16 bits)
// become AVX2's `vpmaddubsw` and `vpmaddwd` with ones on 8 lanes, as
// llama.cpp sums its k-quants there.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/ByteQuadDot.h"
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/CPU/VectorSlices.h"

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

/// How the unsigned byte t of a weight lane is made from byte t of `w`.
enum class UnsignedByte {
  FlippedTopBit, ///< byte ^ 0x80: an int8 plus 128
  LowNibble,     ///< byte & 15
  HighNibble,    ///< byte >> 4
  AsStored,      ///< byte
};

/// The weight lanes `w` and how each of their bytes becomes unsigned.
struct WeightLanes {
  Value lanes;
  UnsignedByte kind = UnsignedByte::FlippedTopBit;
  bool operator==(const WeightLanes &other) const {
    return lanes == other.lanes && kind == other.kind;
  }
};

/// The weight lanes and byte index of `value` when it is `u_t(w)`, an
/// unsigned byte made from byte t of w.
std::optional<std::pair<WeightLanes, int64_t>> matchUnsignedByte(Value value) {
  if (std::optional<LaneByte> byte = matchLaneByte(value))
    return std::pair(WeightLanes{byte->lanes, UnsignedByte::AsStored},
                     byte->index);
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> constant = getConstantIntValue(op->getOperand(1));
  UnsignedByte kind;
  if (isa<arith::XOrIOp>(op) && constant == -128)
    kind = UnsignedByte::FlippedTopBit;
  else if (isa<arith::AndIOp>(op) && constant == 15)
    kind = UnsignedByte::LowNibble;
  else if (isa<arith::ShRUIOp>(op) && constant == 4)
    kind = UnsignedByte::HighNibble;
  else
    return std::nullopt;
  std::optional<LaneByte> byte = matchLaneByte(op->getOperand(0));
  if (!byte)
    return std::nullopt;
  return std::pair(WeightLanes{byte->lanes, kind}, byte->index);
}

/// One product `zext(u_t(w)) * sext(byte_t(x))`.
struct ByteProduct {
  WeightLanes weights;
  Value inputs; ///< x
  int64_t index = 0;
};

/// `sum_t zext(u_t(w)) * sext(byte_t(x))` over a lane's four bytes.
struct QuadSum {
  WeightLanes weights;
  Value inputs; ///< x
};

std::optional<ByteProduct> matchProduct(Value value) {
  auto mul = value.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [unsignedSide, signedSide] :
       {std::pair(mul.getLhs(), mul.getRhs()),
        std::pair(mul.getRhs(), mul.getLhs())}) {
    auto widenWeight = unsignedSide.getDefiningOp<arith::ExtUIOp>();
    auto widenInput = signedSide.getDefiningOp<arith::ExtSIOp>();
    if (!widenWeight || !widenInput)
      continue;
    auto weight = matchUnsignedByte(widenWeight.getIn());
    std::optional<LaneByte> input = matchLaneByte(widenInput.getIn());
    if (!weight || !input || weight->second != input->index)
      continue;
    return ByteProduct{weight->first, input->lanes, input->index};
  }
  return std::nullopt;
}

/// The weights and inputs when `value` is a sum (a tree of `addi`) of the
/// four products of one lane's bytes 0..3.
std::optional<QuadSum> matchQuadSum(Value value) {
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
  std::optional<ByteProduct> first;
  unsigned seen = 0;
  for (Value leaf : leaves) {
    std::optional<ByteProduct> product = matchProduct(leaf);
    if (!product || (first && (!(product->weights == first->weights) ||
                               product->inputs != first->inputs)))
      return std::nullopt;
    first = first ? first : product;
    seen |= 1u << product->index;
  }
  if (seen != 0b1111)
    return std::nullopt;
  return QuadSum{first->weights, first->inputs};
}

/// The quad sums that `value` adds up: one, or the sum of two (q4_0x4's
/// low and high nibbles), possibly reshaped (a register tile of several
/// rows drops unit dimensions before adding it to its accumulator).
SmallVector<QuadSum, 2> matchQuadSums(Value value) {
  if (auto reshape = value.getDefiningOp<vector::ShapeCastOp>())
    value = reshape.getSource();
  if (std::optional<QuadSum> quad = matchQuadSum(value))
    return {*quad};
  auto add = value.getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  std::optional<QuadSum> first = matchQuadSum(add.getLhs());
  std::optional<QuadSum> second = matchQuadSum(add.getRhs());
  if (!first || !second)
    return {};
  return {*first, *second};
}

/// The unsigned bytes of the i32 vector `lanes` that `kind` makes, four
/// bytes of every lane at once.
Value unsignedBytes(PatternRewriter &rewriter, Location loc, Value lanes,
                    UnsignedByte kind) {
  auto type = cast<VectorType>(lanes.getType());
  auto splat = [&](uint32_t value) {
    return arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            type, rewriter.getI32IntegerAttr(static_cast<int32_t>(value))));
  };
  switch (kind) {
  case UnsignedByte::FlippedTopBit:
    return arith::XOrIOp::create(rewriter, loc, lanes, splat(0x80808080u));
  case UnsignedByte::LowNibble:
    return arith::AndIOp::create(rewriter, loc, lanes, splat(0x0F0F0F0Fu));
  case UnsignedByte::HighNibble:
    return arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, lanes, splat(4)),
        splat(0x0F0F0F0Fu));
  case UnsignedByte::AsStored:
    return lanes;
  }
  llvm_unreachable("unknown unsigned byte");
}

/// The instruction that the kernel holding `op` asks its byte quads to
/// become, and the 32-bit lanes of one: vpdpbusd on 16 (AVX-512 VNNI) or 8
/// (AVX-VNNI), or AVX2's vpmaddubsw then vpmaddwd on 8; none.
struct QuadInstruction {
  enum Kind { None, Vpdpbusd, Vpmaddubsw } kind = None;
  int64_t lanes = 0;
};

QuadInstruction requestedInstruction(Operation *op) {
  mlir::tfm::cpu::ProjectionConfigAttr config =
      mlir::tfm::cpu::getEnclosingProjectionConfig(op);
  if (!config || !tfmc::weights::holdsByteQuads(config.getPanels()))
    return {};
  switch (config.getDot()) {
  case mlir::tfm::cpu::DotInstruction::vpdpbusd16:
    return {QuadInstruction::Vpdpbusd, 16};
  case mlir::tfm::cpu::DotInstruction::vpdpbusd8:
    return {QuadInstruction::Vpdpbusd, 8};
  case mlir::tfm::cpu::DotInstruction::vpmaddubsw:
    return {QuadInstruction::Vpmaddubsw, 8};
  default:
    return {};
  }
}

struct ByteQuadDotToVpdpbusd : OpRewritePattern<arith::AddIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::AddIOp add,
                                PatternRewriter &rewriter) const override {
    QuadInstruction instruction = requestedInstruction(add);
    int64_t lanes = instruction.lanes;
    auto type = dyn_cast<VectorType>(add.getType());
    if (!lanes || !type || !type.getElementType().isInteger(32) ||
        type.isScalable() || type.getNumElements() % lanes != 0)
      return failure();
    Value accumulator;
    SmallVector<QuadSum, 2> quads;
    for (auto [sum, other] : {std::pair(add.getLhs(), add.getRhs()),
                              std::pair(add.getRhs(), add.getLhs())}) {
      quads = matchQuadSums(sum);
      if (!quads.empty()) {
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
    // Per quad sum: the weights' unsigned bytes and the inputs, flat.
    SmallVector<std::pair<Value, Value>, 2> operands;
    for (const QuadSum &quad : quads) {
      Value weights = unsignedBytes(rewriter, loc, flatten(quad.weights.lanes),
                                    quad.weights.kind);
      operands.emplace_back(weights, flatten(quad.inputs));
    }
    Value flatAccumulator = flatten(accumulator);
    auto sliceType = VectorType::get({lanes}, rewriter.getI32Type());
    auto bytesType = VectorType::get({4 * lanes}, rewriter.getI8Type());
    auto call = [&](StringRef intrinsic, Type result, ValueRange args) {
      return LLVM::CallIntrinsicOp::create(
                 rewriter, loc, result, rewriter.getStringAttr(intrinsic), args)
          .getResult(0);
    };
    // AVX2's products of unsigned and signed bytes, adjacent pairs summed
    // into 16 bits with saturation: exact for the k-quants' bytes (below
    // 64) and nibbles, whose pairs stay below 2 * 63 * 128. The pairs of
    // two quad sums add in 16 bits too (below 2 * 2 * 15 * 128 for
    // nibbles), then vpmaddwd with ones sums each lane's two pairs.
    auto pairsType = VectorType::get({2 * lanes}, rewriter.getI16Type());
    Value ones;
    if (instruction.kind == QuadInstruction::Vpmaddubsw)
      ones = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(pairsType, rewriter.getI16IntegerAttr(1)));
    Value result = mlir::tfm::updateInSlices(
        rewriter, loc, flatAccumulator, lanes,
        [&](function_ref<Value(Value)> sliceOf) -> Value {
          auto asBytes = [&](Value value) {
            return vector::BitCastOp::create(rewriter, loc, bytesType,
                                             sliceOf(value));
          };
          Value sum = sliceOf(flatAccumulator);
          if (instruction.kind == QuadInstruction::Vpdpbusd) {
            StringRef intrinsic = lanes == 16 ? "llvm.x86.avx512.vpdpbusd.512"
                                              : "llvm.x86.avx512.vpdpbusd.256";
            for (auto [weights, inputs] : operands)
              sum = call(intrinsic, sliceType,
                         ValueRange{sum, asBytes(weights), asBytes(inputs)});
            return sum;
          }
          Value pairs;
          for (auto [weights, inputs] : operands) {
            Value product = call("llvm.x86.avx2.pmadd.ub.sw", pairsType,
                                 ValueRange{asBytes(weights), asBytes(inputs)});
            pairs = pairs ? Value(arith::AddIOp::create(rewriter, loc, pairs,
                                                        product))
                          : product;
          }
          Value quads = call("llvm.x86.avx2.pmadd.wd", sliceType,
                             ValueRange{pairs, ones});
          return arith::AddIOp::create(rewriter, loc, sum, quads);
        });
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(add, type, result);
    return success();
  }
};

struct TfmCpuByteQuadDot
    : mlir::tfm::impl::TfmCpuByteQuadDotBase<TfmCpuByteQuadDot> {
  void runOnOperation() override {
    // Only functions with a kernel that asks for the instruction.
    WalkResult asked = getOperation()->walk([](Operation *op) {
      auto config = mlir::tfm::cpu::getProjectionConfig(op);
      return config && requestedInstruction(op).lanes ? WalkResult::interrupt()
                                                      : WalkResult::advance();
    });
    if (!asked.wasInterrupted())
      return;
    RewritePatternSet patterns(&getContext());
    mlir::tfm::populateByteQuadDotPatterns(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::tfm::populateByteQuadDotPatterns(RewritePatternSet &patterns) {
  patterns.add<ByteQuadDotToVpdpbusd>(patterns.getContext());
}
