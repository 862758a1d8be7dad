//===- Positional.cpp - Embeddings and RoPE to linalg -----------------------===//
#include "dialect/TfmOps.h"
#include "passes/TfmToLinalg/LoweringUtils.h"
#include "passes/TfmToLinalg/TfmToLinalg.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `out[s, d] = table[clamp(tokens[s]), d]`, gathering with tensor.extract.
struct EmbeddingLowering : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value table = op.getTable();
    int64_t vocab = shapeOf(table)[0];
    SmallVector<AffineMap> maps = {projection(context, 2, {0}),
                                   projection(context, 2, {0, 1})};
    Value result =
        linalg::GenericOp::create(
            b, loc, resultType, op.getTokens(),
            emptyTensor(b, loc, resultType.getShape()), maps, iterators(2),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value id = arith::IndexCastOp::create(nb, nloc, nb.getIndexType(),
                                                    args[0]);
              id = arith::MaxSIOp::create(nb, nloc, id,
                                          indexConstant(nb, nloc, 0));
              id = arith::MinSIOp::create(nb, nloc, id,
                                          indexConstant(nb, nloc, vocab - 1));
              Value feature = linalg::IndexOp::create(nb, nloc, 1);
              Value row = tensor::ExtractOp::create(nb, nloc, table,
                                                    ValueRange{id, feature});
              yield(nb, nloc, row);
            })
            .getResult(0);
    b.replaceOp(op, result);
    return success();
  }
};

/// `input + table[offset : offset + sequence]`.
struct PositionEmbeddingLowering : OpRewritePattern<PositionEmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PositionEmbeddingOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    SmallVector<OpFoldResult> offsets = {op.getOffset(), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(shape[0]),
                                       b.getIndexAttr(shape[1])};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    Value rows = tensor::ExtractSliceOp::create(
        b, loc, cast<RankedTensorType>(op.getType()), op.getTable(), offsets,
        sizes, strides);
    AffineMap identity = b.getMultiDimIdentityMap(2);
    Value result =
        linalg::GenericOp::create(
            b, loc, op.getType(), ValueRange{op.getInput(), rows},
            emptyTensor(b, loc, shape),
            SmallVector<AffineMap>(3, identity), iterators(2),
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              yield(
                  nb, nloc, arith::AddFOp::create(nb, nloc, args[0], args[1]));
            })
            .getResult(0);
    b.replaceOp(op, result);
    return success();
  }
};

/// Rotates feature `c` with its partner: for pair index `i` of the head and
/// angle `a = (offset + s) * theta^(-2i / head_dim)`, the first element of a
/// pair becomes `x0 cos a - x1 sin a` and the second `x1 cos a + x0 sin a`.
struct RopeLowering : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    int64_t headDim = op.getHeadDim();
    bool interleaved = op.getLayout() == RopeLayout::interleaved;
    double theta = op.getTheta().convertToDouble();
    Value offset = op.getOffset();
    AffineMap identity = b.getMultiDimIdentityMap(2);

    auto body = [&](OpBuilder &nb, Location nloc, ValueRange args) {
      Value x = args[0];
      Value row = linalg::IndexOp::create(nb, nloc, 0);
      Value column = linalg::IndexOp::create(nb, nloc, 1);
      Value inHead = arith::RemUIOp::create(nb, nloc, column,
                                            indexConstant(nb, nloc, headDim));
      // Pair index and whether this element is the pair's first.
      Value pair, isFirst, partner;
      if (interleaved) {
        pair = arith::DivUIOp::create(nb, nloc, inHead,
                                      indexConstant(nb, nloc, 2));
        Value parity = arith::RemUIOp::create(nb, nloc, inHead,
                                              indexConstant(nb, nloc, 2));
        isFirst = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq,
                                        parity, indexConstant(nb, nloc, 0));
        Value next = arith::AddIOp::create(nb, nloc, column,
                                           indexConstant(nb, nloc, 1));
        Value previous = arith::SubIOp::create(nb, nloc, column,
                                               indexConstant(nb, nloc, 1));
        partner = arith::SelectOp::create(nb, nloc, isFirst, next, previous);
      } else {
        int64_t half = headDim / 2;
        pair = arith::RemUIOp::create(nb, nloc, inHead,
                                      indexConstant(nb, nloc, half));
        isFirst = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::ult,
                                        inHead, indexConstant(nb, nloc, half));
        Value next = arith::AddIOp::create(nb, nloc, column,
                                           indexConstant(nb, nloc, half));
        Value previous = arith::SubIOp::create(nb, nloc, column,
                                               indexConstant(nb, nloc, half));
        partner = arith::SelectOp::create(nb, nloc, isFirst, next, previous);
      }
      Value other = tensor::ExtractOp::create(nb, nloc, input,
                                              ValueRange{row, partner});

      // frequency = theta ^ (-(2 * pair) / head_dim), as llama2.c computes it.
      Value pairF = arith::UIToFPOp::create(
          nb, nloc, nb.getF32Type(),
          arith::IndexCastUIOp::create(nb, nloc, nb.getI64Type(), pair));
      Value exponent = arith::DivFOp::create(
          nb, nloc,
          arith::MulFOp::create(nb, nloc, pairF, f32Constant(nb, nloc, 2.0)),
          f32Constant(nb, nloc, double(headDim)));
      Value frequency = arith::DivFOp::create(
          nb, nloc, f32Constant(nb, nloc, 1.0),
          math::PowFOp::create(nb, nloc, f32Constant(nb, nloc, theta),
                               exponent));
      Value position = arith::AddIOp::create(nb, nloc, row, offset);
      Value positionF = arith::UIToFPOp::create(
          nb, nloc, nb.getF32Type(),
          arith::IndexCastUIOp::create(nb, nloc, nb.getI64Type(), position));
      Value angle = arith::MulFOp::create(nb, nloc, positionF, frequency);
      Value cos = math::CosOp::create(nb, nloc, angle);
      Value sin = math::SinOp::create(nb, nloc, angle);

      // first: x cos - other sin; second: x cos + other sin.
      Value otherSin = arith::MulFOp::create(nb, nloc, other, sin);
      Value signedOtherSin = arith::SelectOp::create(
          nb, nloc, isFirst, arith::NegFOp::create(nb, nloc, otherSin),
          otherSin);
      Value rotated = arith::AddFOp::create(
          nb, nloc, arith::MulFOp::create(nb, nloc, x, cos), signedOtherSin);
      yield(nb, nloc, rotated);
    };
    Value result = linalg::GenericOp::create(
                       b, loc, input.getType(), input,
                       emptyTensor(b, loc, shape),
                       SmallVector<AffineMap>(2, identity), iterators(2), body)
                       .getResult(0);
    b.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tfm::populateTfmPositionalToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, PositionEmbeddingLowering, RopeLowering>(
      patterns.getContext());
}
