//===- Positional.cpp - Embeddings and positions to linalg ----------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `out[s, d] = table[clamp(tokens[s]), d] (* scale)`, gathering with
/// tensor.extract (a 16-bit table's elements widened to f32).
struct EmbeddingLowering : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &b) const override {
    Value table = op.getTable();
    Value result = gatherRows(
        b, op.getLoc(), op.getTokens(), cast<RankedTensorType>(op.getType()),
        shapeOf(table)[0], op.getScale(),
        [&](OpBuilder &nb, Location nloc, Value id, Value feature) -> Value {
          Value element = tensor::ExtractOp::create(nb, nloc, table,
                                                    ValueRange{id, feature});
          if (element.getType().isF32())
            return element;
          return arith::ExtFOp::create(nb, nloc, nb.getF32Type(), element);
        });
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
            emptyTensor(b, loc, shape), SmallVector<AffineMap>(3, identity),
            iterators(2),
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              yield(nb, nloc,
                    arith::AddFOp::create(nb, nloc, args[0], args[1]));
            })
            .getResult(0);
    b.replaceOp(op, result);
    return success();
  }
};

/// `input[s, d] + (d even ? sin : cos)((offset + s) * f[d])`, with `f[d]`
/// the frequency of pair d / 2. The encodings are computed in the generated
/// code, as RoPE's angles are, instead of folded into a [context, dim]
/// constant: one sin and one cos per element of the rows being embedded is
/// nothing beside a layer's projections, while a folded table would add
/// context * dim floats to every binary and bound the positions. The
/// frequencies are compile-time constants, in f32 as PyTorch computes the
/// formula: exp(2i * (f32)(-ln(base) / d)).
struct SinusoidalPositionLowering : OpRewritePattern<SinusoidalPositionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SinusoidalPositionOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    int64_t features = shape[1];
    float step = static_cast<float>(-std::log(op.getBase().convertToDouble()) /
                                    double(features));
    SmallVector<float> frequencies;
    for (int64_t feature = 0; feature < features; ++feature)
      frequencies.push_back(
          std::exp(static_cast<float>(feature - feature % 2) * step));
    Value frequencyTable = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({features}, b.getF32Type()),
            ArrayRef<float>(frequencies)));
    Value offset = op.getOffset();
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(2),
                                   projection(context, 2, {1}),
                                   b.getMultiDimIdentityMap(2)};
    Value result =
        linalg::GenericOp::create(
            b, loc, op.getType(), ValueRange{op.getInput(), frequencyTable},
            emptyTensor(b, loc, shape), maps, iterators(2),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value row = linalg::IndexOp::create(nb, nloc, 0);
              Value feature = linalg::IndexOp::create(nb, nloc, 1);
              Value position = arith::AddIOp::create(nb, nloc, row, offset);
              Value positionF = arith::UIToFPOp::create(
                  nb, nloc, nb.getF32Type(),
                  arith::IndexCastUIOp::create(nb, nloc, nb.getI64Type(),
                                               position));
              Value angle = arith::MulFOp::create(nb, nloc, positionF, args[1]);
              Value parity = arith::AndIOp::create(nb, nloc, feature,
                                                   indexConstant(nb, nloc, 1));
              Value even =
                  arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq,
                                        parity, indexConstant(nb, nloc, 0));
              Value encoding = arith::SelectOp::create(
                  nb, nloc, even, math::SinOp::create(nb, nloc, angle),
                  math::CosOp::create(nb, nloc, angle));
              yield(nb, nloc,
                    arith::AddFOp::create(nb, nloc, args[0], encoding));
            })
            .getResult(0);
    b.replaceOp(op, result);
    return success();
  }
};

/// Rotates each pair `(x0, x1)` of a head's features by the angle
/// `a = (offset + s) * theta^(-2i / head_dim)` of its pair index `i`:
/// `(x0 cos a - x1 sin a, x1 cos a + x0 sin a)`.
///
/// The input is viewed as `[rows, heads, 2, head_dim / 2]` (half_split: the
/// pairs are `(i, i + head_dim / 2)`) or `[rows, heads, head_dim / 2, 2]`
/// (interleaved: `(2i, 2i + 1)`); slicing the pair dimension gives every
/// pair's first and second elements as two tensors over `(row, head, i)`.
/// One generic reads both and writes both rotated halves into slices of
/// the result, so every operand map is a projection (the op vectorises
/// without gathers). cos and sin depend only on the row and the pair: they
/// are computed once per row into [rows, head_dim / 2] tables that every
/// head reads.
struct RopeLowering : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    int64_t rows = shape[0], headDim = op.getHeadDim();
    int64_t heads = shape[1] / headDim;
    int64_t rotatedFeatures = op.getRotatedFeatures();
    int64_t half = rotatedFeatures / 2;
    bool partial = rotatedFeatures < headDim;
    bool interleaved = op.getLayout() == RopeLayout::interleaved;
    // The dimension of the 4-d view that tells a pair's elements apart.
    int64_t pairDim = interleaved ? 3 : 2;
    SmallVector<int64_t> pairShape = {rows, heads, 2, half};
    if (interleaved)
      std::swap(pairShape[2], pairShape[3]);
    auto pairType = RankedTensorType::get(pairShape, b.getF32Type());
    // A partial RoPE rotates the [rows, heads, rotary_dim] corner of the
    // [rows, heads, head_dim] view and keeps the rest.
    SmallVector<ReassociationIndices> splitHeads = {{0}, {1, 2, 3}};
    SmallVector<ReassociationIndices> splitFeatures = {{0}, {1, 2}};
    SmallVector<ReassociationIndices> splitPairs = {{0}, {1}, {2, 3}};
    SmallVector<int64_t> headShape = {rows, heads, headDim};
    SmallVector<OpFoldResult> cornerOffsets(3, b.getIndexAttr(0));
    SmallVector<OpFoldResult> cornerSizes = {b.getIndexAttr(rows),
                                             b.getIndexAttr(heads),
                                             b.getIndexAttr(rotatedFeatures)};
    SmallVector<OpFoldResult> cornerStrides(3, b.getIndexAttr(1));
    Value byHead, pairs;
    if (partial) {
      byHead = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(headShape, b.getF32Type()),
          op.getInput(), splitFeatures);
      Value corner = tensor::ExtractSliceOp::create(
          b, loc,
          RankedTensorType::get({rows, heads, rotatedFeatures}, b.getF32Type()),
          byHead, cornerOffsets, cornerSizes, cornerStrides);
      pairs =
          tensor::ExpandShapeOp::create(b, loc, pairType, corner, splitPairs);
    } else {
      pairs = tensor::ExpandShapeOp::create(b, loc, pairType, op.getInput(),
                                            splitHeads);
    }
    Value rotated = emptyTensor(b, loc, pairShape);

    // Element 0 or 1 of every pair: a [rows, heads, half] slice.
    auto halfType = RankedTensorType::get({rows, heads, half}, b.getF32Type());
    SmallVector<OpFoldResult> sliceSizes, unitStrides(4, b.getIndexAttr(1));
    for (int64_t size : pairShape)
      sliceSizes.push_back(b.getIndexAttr(size));
    sliceSizes[pairDim] = b.getIndexAttr(1);
    auto sliceOffsets = [&](int64_t element) {
      SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0));
      offsets[pairDim] = b.getIndexAttr(element);
      return offsets;
    };
    auto elementOfPairs = [&](Value tensor, int64_t element) -> Value {
      return tensor::ExtractSliceOp::create(b, loc, halfType, tensor,
                                            sliceOffsets(element), sliceSizes,
                                            unitStrides);
    };
    auto [cosTable, sinTable] = angleTables(b, loc, op, rows, half);
    AffineMap identity = b.getMultiDimIdentityMap(3);
    AffineMap tableMap = projection(context, 3, {0, 2});
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{halfType, halfType},
        ValueRange{elementOfPairs(pairs, 0), elementOfPairs(pairs, 1), cosTable,
                   sinTable},
        ValueRange{elementOfPairs(rotated, 0), elementOfPairs(rotated, 1)},
        SmallVector<AffineMap>{identity, identity, tableMap, tableMap, identity,
                               identity},
        iterators(3), [](OpBuilder &nb, Location nloc, ValueRange args) {
          Value x0 = args[0], x1 = args[1], cos = args[2], sin = args[3];
          auto mul = [&](Value l, Value r) -> Value {
            return arith::MulFOp::create(nb, nloc, l, r);
          };
          Value first =
              arith::SubFOp::create(nb, nloc, mul(x0, cos), mul(x1, sin));
          Value second =
              arith::AddFOp::create(nb, nloc, mul(x1, cos), mul(x0, sin));
          linalg::YieldOp::create(nb, nloc, ValueRange{first, second});
        });
    for (int64_t element : {0, 1})
      rotated = tensor::InsertSliceOp::create(
          b, loc, generic.getResult(element), rotated, sliceOffsets(element),
          sliceSizes, unitStrides);
    if (!partial) {
      b.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, op.getType(), rotated,
                                                    splitHeads);
      return success();
    }
    Value corner = tensor::CollapseShapeOp::create(b, loc, rotated, splitPairs);
    Value merged = tensor::InsertSliceOp::create(
        b, loc, corner, byHead, cornerOffsets, cornerSizes, cornerStrides);
    b.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, op.getType(), merged,
                                                  splitFeatures);
    return success();
  }

private:
  /// cos and sin of `(offset + s) * theta^(-2i / rotary_dim)` (or the op's
  /// `frequencies[i]`), times its `attention_factor`, for row `s` and
  /// pair `i`: two [rows, pairs] tables from one generic. The frequencies
  /// are compile-time constants, in f32 as llama2.c computes them.
  static std::pair<Value, Value> angleTables(OpBuilder &b, Location loc,
                                             RopeOp op, int64_t rows,
                                             int64_t pairs) {
    MLIRContext *context = b.getContext();
    float theta = static_cast<float>(op.getTheta().convertToDouble());
    SmallVector<float> frequencies;
    if (std::optional<ArrayRef<float>> scaled = op.getFrequencies()) {
      frequencies.assign(scaled->begin(), scaled->end());
    } else {
      for (int64_t pair = 0; pair < pairs; ++pair) {
        float exponent = static_cast<float>(2 * pair) /
                         static_cast<float>(op.getRotatedFeatures());
        frequencies.push_back(1.0f / std::pow(theta, exponent));
      }
    }
    std::optional<APFloat> attentionFactor = op.getAttentionFactor();
    Value frequencyTable = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({pairs}, b.getF32Type()),
                               ArrayRef<float>(frequencies)));
    Value offset = op.getOffset();
    SmallVector<AffineMap> maps = {projection(context, 2, {1}),
                                   projection(context, 2, {0, 1}),
                                   projection(context, 2, {0, 1})};
    Value empty = emptyTensor(b, loc, {rows, pairs});
    auto tables = linalg::GenericOp::create(
        b, loc, TypeRange{empty.getType(), empty.getType()}, frequencyTable,
        ValueRange{empty, empty}, maps, iterators(2),
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value row = linalg::IndexOp::create(nb, nloc, 0);
          Value position = arith::AddIOp::create(nb, nloc, row, offset);
          Value positionF =
              arith::UIToFPOp::create(nb, nloc, nb.getF32Type(),
                                      arith::IndexCastUIOp::create(
                                          nb, nloc, nb.getI64Type(), position));
          Value angle = arith::MulFOp::create(nb, nloc, positionF, args[0]);
          Value cos = math::CosOp::create(nb, nloc, angle);
          Value sin = math::SinOp::create(nb, nloc, angle);
          if (attentionFactor) {
            Value factor = arith::ConstantOp::create(
                nb, nloc,
                nb.getF32FloatAttr(attentionFactor->convertToFloat()));
            cos = arith::MulFOp::create(nb, nloc, cos, factor);
            sin = arith::MulFOp::create(nb, nloc, sin, factor);
          }
          linalg::YieldOp::create(nb, nloc, ValueRange{cos, sin});
        });
    return {tables.getResult(0), tables.getResult(1)};
  }
};

} // namespace

void mlir::tfm::populateTfmPositionalToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, PositionEmbeddingLowering,
               SinusoidalPositionLowering, RopeLowering>(patterns.getContext());
}
