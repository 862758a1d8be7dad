//===- Projections.cpp - tfm.linear / tfm.lm_head to linalg -----------------===//
//
// `out[s, o] = sum_i x[s, i] * w[o, i] (+ b[o])`: a contraction whose init is
// zero or the broadcast bias.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/LinalgBuilders.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// [rows, outputs] init: zeros, or `bias` repeated on every row.
Value projectionInit(OpBuilder &b, Location loc, int64_t rows, int64_t outputs,
                     Value bias) {
  if (!bias)
    return filledTensor(b, loc, {rows, outputs}, 0.0);
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {projection(context, 2, {1}),
                                 projection(context, 2, {0, 1})};
  Value empty = emptyTensor(b, loc, {rows, outputs});
  return linalg::GenericOp::create(
             b, loc, empty.getType(), bias, empty, maps, iterators(2),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               yield(nb, nloc, args[0]);
             })
      .getResult(0);
}

Value project(OpBuilder &b, Location loc, Value input, Value weight,
              Value bias) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0], outputs = shapeOf(weight)[0];
  Value init = projectionInit(b, loc, rows, outputs, bias);
  // Loops (o, s, i): the output feature is outermost so that one weight row
  // is reused from cache by every token of a prefill chunk instead of the
  // whole matrix being streamed once per token.
  SmallVector<AffineMap> maps = {projection(context, 3, {1, 2}),
                                 projection(context, 3, {0, 2}),
                                 projection(context, 3, {1, 0})};
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{input, weight}, init, maps,
             iterators(2, 1),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               // 16-bit weights are widened as they are read.
               Value w = args[1];
               if (w.getType() != args[0].getType())
                 w = arith::ExtFOp::create(nb, nloc, args[0].getType(), w);
               Value product = arith::MulFOp::create(nb, nloc, args[0], w);
               yield(nb, nloc,
                     arith::AddFOp::create(nb, nloc, args[2], product));
             })
      .getResult(0);
}

/// `out[s, o] += b[o]` for the bias of a packed projection, added after the
/// product because the panels may pad the outputs past the bias.
Value addBias(OpBuilder &b, Location loc, Value product, Value bias) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {projection(context, 2, {0, 1}),
                                 projection(context, 2, {1}),
                                 projection(context, 2, {0, 1})};
  return linalg::GenericOp::create(
             b, loc, product.getType(), ValueRange{product, bias}, product,
             maps, iterators(2),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               yield(nb, nloc,
                     arith::AddFOp::create(nb, nloc, args[0], args[1]));
             })
      .getResult(0);
}

/// `out[s, p, j] = sum_k x[s, k] * w[p, k, j]` over loops (p, s, k, j), seen
/// as [S, P * W] and cut to `outputs` columns. tfm-cpu-tile-projections turns
/// this form into register-blocked micro-kernels.
Value projectPanels(OpBuilder &b, Location loc, Value input, Value panels,
                    int64_t outputs, Value bias) {
  MLIRContext *context = b.getContext();
  int64_t rows = shapeOf(input)[0];
  int64_t numPanels = shapeOf(panels)[0], width = shapeOf(panels)[2];
  Value init = filledTensor(b, loc, {rows, numPanels, width}, 0.0);
  SmallVector<AffineMap> maps = {projection(context, 4, {1, 2}),
                                 projection(context, 4, {0, 2, 3}),
                                 projection(context, 4, {1, 0, 3})};
  SmallVector<utils::IteratorType> loops = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::parallel};
  Value product =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{input, panels}, init, maps, loops,
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            // 16-bit panels are widened in registers as they are read.
            Value w = args[1];
            if (w.getType() != args[0].getType())
              w = arith::ExtFOp::create(nb, nloc, args[0].getType(), w);
            Value term = arith::MulFOp::create(nb, nloc, args[0], w);
            yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[2], term));
          })
          .getResult(0);
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, product, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  if (numPanels * width != outputs) {
    SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                       b.getIndexAttr(outputs)};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    flat = tensor::ExtractSliceOp::create(b, loc, flat, offsets, sizes,
                                          strides);
  }
  return bias ? addBias(b, loc, flat, bias) : flat;
}

struct LinearLowering : OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, project(rewriter, op.getLoc(), op.getInput(),
                                   op.getWeight(), op.getBias()));
    return success();
  }
};

struct LMHeadLowering : OpRewritePattern<LMHeadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LMHeadOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, project(rewriter, op.getLoc(), op.getInput(),
                                   op.getWeight(), Value()));
    return success();
  }
};

struct PackedLinearLowering : OpRewritePattern<PackedLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PackedLinearOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, projectPanels(rewriter, op.getLoc(), op.getInput(),
                                         op.getWeight(), op.getOutFeatures(),
                                         op.getBias()));
    return success();
  }
};

} // namespace

void mlir::tfm::populateTfmProjectionsToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LinearLowering, LMHeadLowering, PackedLinearLowering>(
      patterns.getContext());
}
