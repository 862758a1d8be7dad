//===- MoE.cpp - tfm.moe_route and tfm.moe_experts to linalg and scf -----===//
//
// A mixture of experts runs per token. The routing: the router logits of
// all tokens are one product, then a loop over tokens chooses each token's
// top_k experts with scalar code (a handful of experts) and writes their
// indices and weights. The experts: a loop over tokens and their choices
// accumulates the chosen experts' SwiGLU outputs, each a product over a
// slice of the stacked weights at the expert's rows. Only the chosen
// experts' rows are read. The loops run on the host: this is the CPU's form
// (MoEGathers.cpp has the one whose every step is a structured op).
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/MoERouting.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `matrix[rows, cols] * vector[cols]` over rows [first, first + count) of
/// `matrix`: a [count] tensor.
Value rowsTimesVector(OpBuilder &b, Location loc, Value matrix, Value first,
                      int64_t count, Value vector) {
  int64_t columns = shapeOf(matrix)[1];
  Type element = getElementTypeOrSelf(matrix.getType());
  Value rows = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({count, columns}, element), matrix,
      ArrayRef<OpFoldResult>{first, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(count), b.getIndexAttr(columns)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {projection(context, 2, {0, 1}),
                                 projection(context, 2, {1}),
                                 projection(context, 2, {0})};
  return linalg::GenericOp::create(
             b, loc, RankedTensorType::get({count}, b.getF32Type()),
             ValueRange{rows, vector}, filledTensor(b, loc, {count}, 0.0), maps,
             iterators(1, 1), moe::multiplyAdd)
      .getResult(0);
}

class MoERouteLowering : public OpRewritePattern<MoERouteOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MoERouteOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t tokens = shapeOf(op.getInput())[0];
    int64_t topK = op.getTopK();
    Value logits = moe::routerLogits(b, loc, op);

    // Every slot is written below.
    Value weights = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{tokens, topK}, b.getF32Type());
    Value chosen = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{tokens, topK}, b.getI32Type());
    auto loop = scf::ForOp::create(
        b, loc, index(b, loc, 0), index(b, loc, tokens), index(b, loc, 1),
        ValueRange{weights, chosen},
        [&](OpBuilder &lb, Location lloc, Value token, ValueRange carried) {
          scf::YieldOp::create(
              lb, lloc, routeToken(lb, lloc, op, logits, token, carried));
        });
    b.replaceOp(op, loop.getResults());
    return success();
  }

private:
  /// `weights` and `experts` with `token`'s row written.
  static SmallVector<Value> routeToken(OpBuilder &b, Location loc,
                                       MoERouteOp op, Value logits, Value token,
                                       ValueRange weightsAndExperts) {
    int64_t experts = op.getNumExperts(), topK = op.getTopK();
    moe::TokenLogits logitOf{logits, token};

    Value maximum = moe::largestLogit(b, loc, experts, logitOf);

    // One pass over the choices writes each slot's expert and the
    // numerator exp(logit - maximum) of its weight, and sums the
    // numerators in the order of the choices (top_k_softmax's
    // denominator).
    SmallVector<Value> chosen = moe::foldChoices(
        b, loc, experts, topK, logitOf, maximum,
        ValueRange{weightsAndExperts[0], weightsAndExperts[1],
                   f32Constant(b, loc, 0.0)},
        [&](OpBuilder &nb, Location nloc, moe::Choice choice, Value slot,
            Value numerator, ValueRange written) -> SmallVector<Value> {
          Value expert = arith::IndexCastOp::create(nb, nloc, nb.getI32Type(),
                                                    choice.expert);
          return {tensor::InsertOp::create(nb, nloc, numerator, written[0],
                                           ValueRange{token, slot}),
                  tensor::InsertOp::create(nb, nloc, expert, written[1],
                                           ValueRange{token, slot}),
                  arith::AddFOp::create(nb, nloc, written[2], numerator)};
        });
    Value denominator = moe::routingDenominator(
        b, loc, op.getRouting(), experts, logitOf, maximum, chosen[2]);

    Value weights = moe::foldRange(
        b, loc, topK, chosen[0],
        [&](OpBuilder &nb, Location nloc, Value slot, Value written) {
          Value numerator = tensor::ExtractOp::create(nb, nloc, written,
                                                      ValueRange{token, slot});
          Value weight =
              arith::DivFOp::create(nb, nloc, numerator, denominator);
          return tensor::InsertOp::create(nb, nloc, weight, written,
                                          ValueRange{token, slot})
              .getResult();
        });
    return {weights, chosen[1]};
  }
};

class MoEExpertsLowering : public OpRewritePattern<MoEExpertsOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MoEExpertsOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t tokens = shapeOf(op.getInput())[0];
    int64_t features = shapeOf(op.getInput())[1];
    Value output = filledTensor(b, loc, {tokens, features}, 0.0);
    auto loop = scf::ForOp::create(
        b, loc, index(b, loc, 0), index(b, loc, tokens), index(b, loc, 1),
        ValueRange{output},
        [&](OpBuilder &lb, Location lloc, Value token, ValueRange carried) {
          Value row = runToken(lb, lloc, op, token);
          Value updated = tensor::InsertSliceOp::create(
              lb, lloc, row, carried[0],
              ArrayRef<OpFoldResult>{token, lb.getIndexAttr(0)},
              ArrayRef<OpFoldResult>{lb.getIndexAttr(1),
                                     lb.getIndexAttr(features)},
              ArrayRef<OpFoldResult>{lb.getIndexAttr(1), lb.getIndexAttr(1)});
          scf::YieldOp::create(lb, lloc, ValueRange{updated});
        });
    b.replaceOp(op, loop.getResult(0));
    return success();
  }

private:
  /// The [1, features] output row of `token`.
  static Value runToken(OpBuilder &b, Location loc, MoEExpertsOp op,
                        Value token) {
    int64_t features = shapeOf(op.getInput())[1];
    int64_t experts = op.getNumExperts();
    // Rank-reducing: the token's [features] row.
    Value x = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({features}, b.getF32Type()),
        op.getInput(), ArrayRef<OpFoldResult>{token, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(features)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    Value row = moe::foldRange(
        b, loc, op.getTopK(), filledTensor(b, loc, {features}, 0.0),
        [&](OpBuilder &nb, Location nloc, Value slot, Value sum) {
          Value weight = tensor::ExtractOp::create(nb, nloc, op.getWeights(),
                                                   ValueRange{token, slot});
          Value expert = moe::clampedExpert(
              nb, nloc,
              tensor::ExtractOp::create(nb, nloc, op.getExperts(),
                                        ValueRange{token, slot}),
              experts);
          return accumulateExpert(nb, nloc, op, x, expert, weight, sum);
        });
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1, features}, b.getF32Type()), row,
        SmallVector<ReassociationIndices>{{0, 1}});
  }

  /// `sum + weight * down_e(silu(gate_e x) * up_e x)`, reading expert e's
  /// rows only.
  static Value accumulateExpert(OpBuilder &b, Location loc, MoEExpertsOp op,
                                Value x, Value expert, Value weight,
                                Value sum) {
    int64_t features = shapeOf(op.getInput())[1];
    int64_t hidden = op.getExpertHidden();
    Value hiddenFirst =
        arith::MulIOp::create(b, loc, expert, index(b, loc, hidden));
    Value gate = rowsTimesVector(b, loc, op.getGate(), hiddenFirst, hidden, x);
    Value up = rowsTimesVector(b, loc, op.getUp(), hiddenFirst, hidden, x);
    MLIRContext *context = b.getContext();
    SmallVector<AffineMap> elementwise(3, projection(context, 1, {0}));
    Value inner =
        linalg::GenericOp::create(
            b, loc, up.getType(), ValueRange{gate, up},
            emptyTensor(b, loc, {hidden}), elementwise, iterators(1),
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              yield(nb, nloc, moe::swiglu(nb, nloc, args[0], args[1]));
            })
            .getResult(0);
    Value featureFirst =
        arith::MulIOp::create(b, loc, expert, index(b, loc, features));
    Value down =
        rowsTimesVector(b, loc, op.getDown(), featureFirst, features, inner);
    // Accumulated in place into `sum`, so that the loop over choices
    // carries one buffer.
    SmallVector<AffineMap> accumulateMaps(2, projection(context, 1, {0}));
    return linalg::GenericOp::create(
               b, loc, sum.getType(), ValueRange{down}, ValueRange{sum},
               accumulateMaps, iterators(1),
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 Value scaled =
                     arith::MulFOp::create(nb, nloc, weight, args[0]);
                 yield(nb, nloc,
                       arith::AddFOp::create(nb, nloc, args[1], scaled));
               })
        .getResult(0);
  }
};

} // namespace

void mlir::tfm::populateTfmMoEToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MoERouteLowering, MoEExpertsLowering>(patterns.getContext());
}
