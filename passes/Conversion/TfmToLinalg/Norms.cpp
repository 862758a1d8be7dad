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

struct RMSNormLowering : OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    // Groups (one head each) become rows of their own: [rows, F] is viewed
    // as [rows * F / G, G], normalised row by row, and viewed back.
    int64_t group = op.getNormalizedFeatures();
    ArrayRef<int64_t> original = shapeOf(x);
    bool grouped = group != original[1];
    SmallVector<ReassociationIndices> split = {{0}, {1, 2}};
    SmallVector<ReassociationIndices> merge = {{0, 1}, {2}};
    if (grouped) {
      int64_t groups = original[1] / group;
      auto split3 =
          RankedTensorType::get({original[0], groups, group}, b.getF32Type());
      x = tensor::ExpandShapeOp::create(b, loc, split3, x, split);
      x = tensor::CollapseShapeOp::create(b, loc, x, merge);
    }
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
    if (grouped) {
      auto split3 = RankedTensorType::get(
          {original[0], original[1] / group, group}, b.getF32Type());
      result = tensor::ExpandShapeOp::create(b, loc, split3, result, merge);
      result = tensor::CollapseShapeOp::create(b, loc, result, split);
    }
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
    ArrayRef<int64_t> shape = shapeOf(x);
    float eps = op.getEps().convertToFloat();
    Value features = f32Constant(b, loc, double(shape[1]));
    Value sums = reduceRows(
        b, loc, x, {},
        [](OpBuilder &, Location, Value e, ValueRange) { return e; });
    // The mean is divided out inside the variance reduction and again in the
    // normalisation instead of materialising a [sequence] mean tensor.
    Value squaredDeviations =
        reduceRows(b, loc, x, {sums},
                   [&](OpBuilder &nb, Location nloc, Value e, ValueRange row) {
                     Value mean =
                         arith::DivFOp::create(nb, nloc, row[0], features);
                     Value centered = arith::SubFOp::create(nb, nloc, e, mean);
                     return arith::MulFOp::create(nb, nloc, centered, centered)
                         .getResult();
                   });
    MLIRContext *context = b.getContext();
    SmallVector<AffineMap> maps = {
        projection(context, 2, {0, 1}), projection(context, 2, {0}),
        projection(context, 2, {0}),    projection(context, 2, {1}),
        projection(context, 2, {1}),    projection(context, 2, {0, 1})};
    Value result =
        linalg::GenericOp::create(
            b, loc, x.getType(),
            ValueRange{x, sums, squaredDeviations, op.getWeight(),
                       op.getBias()},
            emptyTensor(b, loc, shape), maps, iterators(2),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value mean = arith::DivFOp::create(nb, nloc, args[1], features);
              Value scale = inverseRoot(nb, nloc, args[2], shape[1], eps);
              Value centered = arith::SubFOp::create(nb, nloc, args[0], mean);
              Value normed = arith::MulFOp::create(nb, nloc, centered, scale);
              Value scaled = arith::MulFOp::create(nb, nloc, normed, args[3]);
              yield(nb, nloc, arith::AddFOp::create(nb, nloc, scaled, args[4]));
            })
            .getResult(0);
    b.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tfm::populateTfmNormsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RMSNormLowering, LayerNormLowering>(patterns.getContext());
}
