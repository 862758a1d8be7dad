//===- Projections.cpp - tfm.linear / tfm.lm_head to linalg ---------------===//
//
// `out[s, o] = sum_i x[s, i] * w[o, i] (+ b[o])`: a contraction whose init is
// zero or the broadcast bias, over the weight as the network declares it. A
// target that lays weights out for its kernels lowers its own projections
// (the CPU's panels: passes/Codegen/CPU/PanelProjections/).
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

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
                                   op.getWeight(), op.getBias()));
    return success();
  }
};

} // namespace

void mlir::tfm::populateTfmProjectionsToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LinearLowering, LMHeadLowering>(patterns.getContext());
}
