//===- Positional.cpp - Embeddings and RoPE to linalg -----------------------===//
#include "dialect/TfmOps.h"
#include "passes/TfmToLinalg/LoweringUtils.h"
#include "passes/TfmToLinalg/TfmToLinalg.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

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
///
/// The frequencies are compile-time constants, and cos/sin depend only on
/// the row and the position within a head: they are computed once per row
/// into [rows, head_dim] tables that every head reads, instead of once per
/// element.
struct RopeLowering : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    Value input = op.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    int64_t headDim = op.getHeadDim();
    bool interleaved = op.getLayout() == RopeLayout::interleaved;
    auto [cosTable, sinTable] =
        angleTables(b, loc, op, shape[0], pairFrequencies(op));

    // Columns of one head read the tables at `column mod head_dim`.
    AffineExpr row = getAffineDimExpr(0, context),
               column = getAffineDimExpr(1, context);
    AffineMap identity = b.getMultiDimIdentityMap(2);
    AffineMap inHeadMap = AffineMap::get(2, 0, {row, column % headDim}, context);
    auto body = [&](OpBuilder &nb, Location nloc, ValueRange args) {
      Value x = args[0], cos = args[1], sin = args[2];
      Value rowIndex = linalg::IndexOp::create(nb, nloc, 0);
      Value columnIndex = linalg::IndexOp::create(nb, nloc, 1);
      Value inHead = arith::RemUIOp::create(nb, nloc, columnIndex,
                                            indexConstant(nb, nloc, headDim));
      // Whether this element is its pair's first, and the partner's column.
      Value isFirst, distance;
      if (interleaved) {
        Value parity = arith::RemUIOp::create(nb, nloc, inHead,
                                              indexConstant(nb, nloc, 2));
        isFirst = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq,
                                        parity, indexConstant(nb, nloc, 0));
        distance = indexConstant(nb, nloc, 1);
      } else {
        int64_t half = headDim / 2;
        isFirst = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::ult,
                                        inHead, indexConstant(nb, nloc, half));
        distance = indexConstant(nb, nloc, half);
      }
      Value partner = arith::SelectOp::create(
          nb, nloc, isFirst,
          arith::AddIOp::create(nb, nloc, columnIndex, distance),
          arith::SubIOp::create(nb, nloc, columnIndex, distance));
      Value other = tensor::ExtractOp::create(nb, nloc, input,
                                              ValueRange{rowIndex, partner});
      // first: x cos - other sin; second: x cos + other sin.
      Value otherSin = arith::MulFOp::create(nb, nloc, other, sin);
      Value signedOtherSin = arith::SelectOp::create(
          nb, nloc, isFirst, arith::NegFOp::create(nb, nloc, otherSin),
          otherSin);
      Value rotated = arith::AddFOp::create(
          nb, nloc, arith::MulFOp::create(nb, nloc, x, cos), signedOtherSin);
      yield(nb, nloc, rotated);
    };
    Value result =
        linalg::GenericOp::create(
            b, loc, input.getType(), ValueRange{input, cosTable, sinTable},
            emptyTensor(b, loc, shape),
            SmallVector<AffineMap>{identity, inHeadMap, inHeadMap, identity},
            iterators(2), body)
            .getResult(0);
    b.replaceOp(op, result);
    return success();
  }

private:
  /// theta ^ (-(2 * pair) / head_dim) for every position of a head, in f32
  /// as llama2.c computes it: a compile-time constant.
  static Value pairFrequencies(RopeOp op) {
    int64_t headDim = op.getHeadDim();
    bool interleaved = op.getLayout() == RopeLayout::interleaved;
    float theta = static_cast<float>(op.getTheta().convertToDouble());
    SmallVector<float> frequencies;
    for (int64_t inHead = 0; inHead < headDim; ++inHead) {
      int64_t pair = interleaved ? inHead / 2 : inHead % (headDim / 2);
      float exponent = static_cast<float>(2 * pair) / static_cast<float>(headDim);
      frequencies.push_back(1.0f / std::pow(theta, exponent));
    }
    OpBuilder b(op);
    auto type = RankedTensorType::get({headDim}, b.getF32Type());
    return arith::ConstantOp::create(
        b, op.getLoc(),
        DenseElementsAttr::get(type, ArrayRef<float>(frequencies)));
  }

  /// cos and sin of `(offset + s) * frequency[i]`: two [rows, head_dim]
  /// tables from one generic.
  static std::pair<Value, Value> angleTables(OpBuilder &b, Location loc,
                                             RopeOp op, int64_t rows,
                                             Value frequencies) {
    MLIRContext *context = b.getContext();
    int64_t headDim = op.getHeadDim();
    Value offset = op.getOffset();
    SmallVector<AffineMap> maps = {projection(context, 2, {1}),
                                   projection(context, 2, {0, 1}),
                                   projection(context, 2, {0, 1})};
    Value empty = emptyTensor(b, loc, {rows, headDim});
    auto tables = linalg::GenericOp::create(
        b, loc, TypeRange{empty.getType(), empty.getType()}, frequencies,
        ValueRange{empty, empty}, maps, iterators(2),
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value row = linalg::IndexOp::create(nb, nloc, 0);
          Value position = arith::AddIOp::create(nb, nloc, row, offset);
          Value positionF = arith::UIToFPOp::create(
              nb, nloc, nb.getF32Type(),
              arith::IndexCastUIOp::create(nb, nloc, nb.getI64Type(),
                                           position));
          Value angle = arith::MulFOp::create(nb, nloc, positionF, args[0]);
          linalg::YieldOp::create(
              nb, nloc,
              ValueRange{math::CosOp::create(nb, nloc, angle),
                         math::SinOp::create(nb, nloc, angle)});
        });
    return {tables.getResult(0), tables.getResult(1)};
  }
};

} // namespace

void mlir::tfm::populateTfmPositionalToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, PositionEmbeddingLowering, RopeLowering>(
      patterns.getContext());
}
