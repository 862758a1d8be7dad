//===- PanelEmbedding.cpp - Embedding lookup in a classifier's panels -----===//
//
// tfm_cpu.panel_embedding gathers each token's row from the tied
// classifier's panels: row t is lane t % W of panel t / W, its features W
// elements (value panels) or W quants (block formats) apart. Block formats
// are dequantized as their projections' weights are. One row per token,
// read once: a strided gather costs nothing next to the projections.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/KQuants.h"
#include "passes/Codegen/CPU/IR/TfmCpuOps.h"
#include "passes/Codegen/CPU/PanelProjections/PanelProjections.h"
#include "passes/LinalgBuilders.h"

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;
using tfmc::weights::PanelFormat;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Value `column` of the block format `op`'s row in `lane` of `panel`:
/// the quant that holds it (a byte of an i8 or i32 quant, or one nibble of
/// it), widened, times its block's scale, minus its minimum.
Value dequantize(OpBuilder &b, Location loc, PanelEmbeddingOp op, Value panel,
                 Value lane, Value column) {
  PanelFormat format = op.getLayout().getFormat();
  int64_t blockValues = op.getBlockValues();
  unsigned quantBits = tfmc::weights::quantBits(format);
  int64_t bytesPerQuant = quantBits / 8;
  bool nibbles = tfmc::weights::valuesPerQuant(format) == 2 * bytesPerQuant;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto i32Constant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, value));
  };
  Value block = arith::DivUIOp::create(b, loc, column,
                                       indexConstant(b, loc, blockValues));
  Value inBlock = arith::RemUIOp::create(b, loc, column,
                                         indexConstant(b, loc, blockValues));
  // A nibble block's byte i holds values i (low) and i + B / 2 (high).
  Value byte = inBlock, high;
  if (nibbles) {
    Value half = indexConstant(b, loc, blockValues / 2);
    high =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, inBlock, half);
    byte = arith::RemUIOp::create(b, loc, inBlock, half);
  }
  // Byte t of an i32 quant is its bits [8t, 8t + 8) (little-endian, as
  // packBlockPanels writes four bytes a lane).
  Value quantIndex = arith::DivUIOp::create(
      b, loc, byte, indexConstant(b, loc, bytesPerQuant));
  Value quant = tensor::ExtractOp::create(
      b, loc, op.getPanels(), ValueRange{panel, block, quantIndex, lane});
  Value bits = quantBits == 32
                   ? quant
                   : Value(arith::ExtUIOp::create(b, loc, i32, quant));
  Value shift = arith::IndexCastOp::create(
      b, loc, i32,
      arith::MulIOp::create(
          b, loc,
          arith::RemUIOp::create(b, loc, byte,
                                 indexConstant(b, loc, bytesPerQuant)),
          indexConstant(b, loc, 8)));
  if (nibbles)
    shift = arith::AddIOp::create(
        b, loc, shift,
        arith::SelectOp::create(b, loc, high, i32Constant(4), i32Constant(0)));
  bits = arith::ShRUIOp::create(b, loc, bits, shift);
  Value value;
  if (nibbles) {
    // Q4_0's nibbles are offset by 8; the k-quants' are as stored.
    Value nibble = arith::AndIOp::create(b, loc, bits, i32Constant(15));
    if (tfmc::weights::panelElementType(format) ==
        tfmc::weights::ElementType::Q4_0)
      nibble = arith::SubIOp::create(b, loc, nibble, i32Constant(8));
    value = arith::SIToFPOp::create(b, loc, f32, nibble);
  } else {
    // An int8 quant; kquantx4's are stored biased to unsigned bytes.
    Value quant = arith::TruncIOp::create(b, loc, b.getIntegerType(8), bits);
    if (int64_t bias = tfmc::weights::quantBias(format))
      quant = arith::SubIOp::create(b, loc,
                                    arith::ExtUIOp::create(b, loc, i32, quant),
                                    i32Constant(bias));
    value = arith::SIToFPOp::create(b, loc, f32, quant);
  }
  // kquantx4's and kquant4x4's scales and minimums are integers, times
  // their super-block's f32 factors d and dmin.
  Value factors = op.getFactors(), superBlock;
  if (factors)
    superBlock = arith::DivUIOp::create(
        b, loc, block,
        indexConstant(b, loc,
                      tfmc::weights::kSuperBlockElements / blockValues));
  auto blockFactor = [&](Value part, int64_t factor) -> Value {
    Value stored =
        tensor::ExtractOp::create(b, loc, part, ValueRange{panel, block, lane});
    if (!factors)
      return stored.getType() == f32
                 ? stored
                 : Value(arith::ExtFOp::create(b, loc, f32, stored));
    Value perSuperBlock = tensor::ExtractOp::create(
        b, loc, factors,
        ValueRange{panel, superBlock, indexConstant(b, loc, factor), lane});
    return arith::MulFOp::create(b, loc, perSuperBlock,
                                 arith::SIToFPOp::create(b, loc, f32, stored));
  };
  value = arith::MulFOp::create(b, loc, value, blockFactor(op.getScales(), 0));
  if (Value mins = op.getMins())
    value = arith::SubFOp::create(b, loc, value, blockFactor(mins, 1));
  return value;
}

/// `out[s, d] = row t of the panels' matrix, feature d (* scale)`, t =
/// clamp(tokens[s]).
struct PanelEmbeddingLowering : OpRewritePattern<PanelEmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PanelEmbeddingOp op,
                                PatternRewriter &b) const override {
    Value panels = op.getPanels();
    int64_t width = shapeOf(panels).back();
    bool block = tfmc::weights::isBlockFormat(op.getLayout().getFormat());
    Value result = gatherRows(
        b, op.getLoc(), op.getTokens(), cast<RankedTensorType>(op.getType()),
        op.getVocab(), op.getScale(),
        [&](OpBuilder &nb, Location nloc, Value id, Value feature) -> Value {
          Value panel = arith::DivUIOp::create(nb, nloc, id,
                                               indexConstant(nb, nloc, width));
          Value lane = arith::RemUIOp::create(nb, nloc, id,
                                              indexConstant(nb, nloc, width));
          if (block)
            return dequantize(nb, nloc, op, panel, lane, feature);
          Value value = tensor::ExtractOp::create(
              nb, nloc, panels, ValueRange{panel, feature, lane});
          Type f32 = nb.getF32Type();
          return value.getType() == f32
                     ? value
                     : Value(arith::ExtFOp::create(nb, nloc, f32, value));
        });
    b.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tfm::cpu::populateTfmCpuPanelEmbeddingPatterns(
    RewritePatternSet &patterns) {
  patterns.add<PanelEmbeddingLowering>(patterns.getContext());
}
