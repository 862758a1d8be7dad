//===- Norms.cpp - tfm.rms_norm / tfm.layer_norm to linalg ----------------===//
//
// Each norm is a row reduction into a [sequence] tensor followed by one
// parallel generic that normalises and scales.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// `result[s] = sum_d f(x[s, d], extra[s]...)`, where `extra` are per-row
/// tensors already computed.
Value reduceRows(OpBuilder &b, Location loc, Value x, ValueRange rowInputs,
                 llvm::function_ref<Value(OpBuilder &, Location, Value element,
                                          ValueRange rowValues)>
                     term) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(x)[0];
  SmallVector<Value> inputs = {x};
  inputs.append(rowInputs.begin(), rowInputs.end());
  SmallVector<AffineMap> maps = {projection(context, 2, {0, 1})};
  maps.append(rowInputs.size(), projection(context, 2, {0}));
  maps.push_back(projection(context, 2, {0}));
  Value init = filledTensor(b, loc, {rows}, 0.0);
  return linalg::GenericOp::create(
             b, loc, init.getType(), inputs, init, maps, iterators(1, 1),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value value =
                   term(nb, nloc, args[0], args.slice(1, rowInputs.size()));
               yield(nb, nloc,
                     arith::AddFOp::create(nb, nloc, args.back(), value));
             })
      .getResult(0);
}

/// `1 / sqrt(sum / features + eps)`.
Value inverseRoot(OpBuilder &b, Location loc, Value sum, int64_t features,
                  float eps) {
  Value mean =
      arith::DivFOp::create(b, loc, sum, f32Constant(b, loc, double(features)));
  Value shifted = arith::AddFOp::create(b, loc, mean, f32Constant(b, loc, eps));
  return arith::DivFOp::create(b, loc, f32Constant(b, loc, 1.0),
                               math::SqrtOp::create(b, loc, shifted));
}

/// Groups of `group` features (one head each) as rows of their own:
/// `[rows, F]` viewed as `[rows * F / group, group]`.
Value groupsAsRows(OpBuilder &b, Location loc, Value x, int64_t group) {
  ArrayRef<int64_t> shape = shapeOf(x);
  auto split = RankedTensorType::get({shape[0], shape[1] / group, group},
                                     b.getF32Type());
  Value heads = tensor::ExpandShapeOp::create(
      b, loc, split, x, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  return tensor::CollapseShapeOp::create(
      b, loc, heads, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
}

/// The inverse of groupsAsRows: back to `[rows, features]`.
Value rowsAsGroups(OpBuilder &b, Location loc, Value x, int64_t rows,
                   int64_t features) {
  int64_t group = shapeOf(x)[1];
  auto split =
      RankedTensorType::get({rows, features / group, group}, b.getF32Type());
  Value heads = tensor::ExpandShapeOp::create(
      b, loc, split, x, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  return tensor::CollapseShapeOp::create(
      b, loc, heads, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
}

struct RMSNormLowering : OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    // Groups (one head each) become rows of their own, normalised row by
    // row, and are viewed back.
    int64_t group = op.getNormalizedFeatures();
    int64_t rows = shapeOf(x)[0], features = shapeOf(x)[1];
    bool grouped = group != features;
    if (grouped)
      x = groupsAsRows(b, loc, x, group);
    ArrayRef<int64_t> shape = shapeOf(x);
    float eps = op.getEps().convertToFloat();
    bool unitOffset = op.getUnitOffset();
    Value squares = reduceRows(
        b, loc, x, {}, [](OpBuilder &nb, Location nloc, Value e, ValueRange) {
          return arith::MulFOp::create(nb, nloc, e, e).getResult();
        });
    MLIRContext *context = b.getContext();
    SmallVector<AffineMap> maps = {
        projection(context, 2, {0, 1}), projection(context, 2, {0}),
        projection(context, 2, {1}), projection(context, 2, {0, 1})};
    Value result =
        linalg::GenericOp::create(
            b, loc, x.getType(), ValueRange{x, squares, op.getWeight()},
            emptyTensor(b, loc, shape), maps, iterators(2),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value scale = inverseRoot(nb, nloc, args[1], shape[1], eps);
              Value normed = arith::MulFOp::create(nb, nloc, scale, args[0]);
              Value weight = args[2];
              if (unitOffset)
                weight = arith::AddFOp::create(nb, nloc, weight,
                                               f32Constant(nb, nloc, 1.0));
              yield(nb, nloc, arith::MulFOp::create(nb, nloc, weight, normed));
            })
            .getResult(0);
    if (grouped)
      result = rowsAsGroups(b, loc, result, rows, features);
    b.replaceOp(op, result);
    return success();
  }
};

struct LayerNormLowering : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Value weight = op.getWeight(), bias = op.getBias();
    // Groups (one head each) become rows of their own, as for RMSNorm.
    // Weights of one group's size scale each of them; weights per feature
    // (each group its own) scale the features once they are viewed back.
    int64_t group = op.getNormalizedFeatures();
    int64_t rows = shapeOf(x)[0], features = shapeOf(x)[1];
    bool grouped = group != features;
    bool scaleAfter = grouped && shapeOf(weight)[0] == features;
    if (grouped)
      x = groupsAsRows(b, loc, x, group);
    ArrayRef<int64_t> shape = shapeOf(x);
    float eps = op.getEps().convertToFloat();
    Value count = f32Constant(b, loc, double(shape[1]));
    Value sums = reduceRows(
        b, loc, x, {},
        [](OpBuilder &, Location, Value e, ValueRange) { return e; });
    // The mean is divided out inside the variance reduction and again in the
    // normalisation instead of materialising a [sequence] mean tensor.
    Value squaredDeviations =
        reduceRows(b, loc, x, {sums},
                   [&](OpBuilder &nb, Location nloc, Value e, ValueRange row) {
                     Value mean =
                         arith::DivFOp::create(nb, nloc, row[0], count);
                     Value centered = arith::SubFOp::create(nb, nloc, e, mean);
                     return arith::MulFOp::create(nb, nloc, centered, centered)
                         .getResult();
                   });
    MLIRContext *context = b.getContext();
    SmallVector<Value> inputs = {x, sums, squaredDeviations};
    SmallVector<AffineMap> maps = {projection(context, 2, {0, 1}),
                                   projection(context, 2, {0}),
                                   projection(context, 2, {0})};
    if (!scaleAfter) {
      inputs.push_back(weight);
      if (bias)
        inputs.push_back(bias);
    }
    maps.append(inputs.size() - 3, projection(context, 2, {1}));
    maps.push_back(projection(context, 2, {0, 1}));
    Value result =
        linalg::GenericOp::create(
            b, loc, x.getType(), inputs, emptyTensor(b, loc, shape), maps,
            iterators(2),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value mean = arith::DivFOp::create(nb, nloc, args[1], count);
              Value scale = inverseRoot(nb, nloc, args[2], shape[1], eps);
              Value centered = arith::SubFOp::create(nb, nloc, args[0], mean);
              Value normed = arith::MulFOp::create(nb, nloc, centered, scale);
              yield(nb, nloc,
                    scaleAfter ? normed
                               : affine(nb, nloc, normed, args.drop_front(3)));
            })
            .getResult(0);
    if (grouped)
      result = rowsAsGroups(b, loc, result, rows, features);
    if (scaleAfter)
      result = scaleFeatures(b, loc, result, weight, bias);
    b.replaceOp(op, result);
    return success();
  }

private:
  /// `normed * weight (+ bias)`, from a generic's block arguments
  /// `{weight, [bias], output}`.
  static Value affine(OpBuilder &b, Location loc, Value normed,
                      ValueRange args) {
    Value scaled = arith::MulFOp::create(b, loc, normed, args[0]);
    if (args.size() == 3)
      return arith::AddFOp::create(b, loc, scaled, args[1]);
    return scaled;
  }

  /// `x[s, f] * weight[f] (+ bias[f])`.
  static Value scaleFeatures(OpBuilder &b, Location loc, Value x, Value weight,
                             Value bias) {
    MLIRContext *context = b.getContext();
    SmallVector<Value> inputs = {x, weight};
    if (bias)
      inputs.push_back(bias);
    SmallVector<AffineMap> maps = {projection(context, 2, {0, 1})};
    maps.append(inputs.size() - 1, projection(context, 2, {1}));
    maps.push_back(projection(context, 2, {0, 1}));
    return linalg::GenericOp::create(
               b, loc, x.getType(), inputs, emptyTensor(b, loc, shapeOf(x)),
               maps, iterators(2),
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 yield(nb, nloc, affine(nb, nloc, args[0], args.drop_front()));
               })
        .getResult(0);
  }
};

} // namespace

void mlir::tfm::populateTfmNormsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RMSNormLowering, LayerNormLowering>(patterns.getContext());
}
