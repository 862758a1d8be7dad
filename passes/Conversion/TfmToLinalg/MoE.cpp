//===- MoE.cpp - tfm.moe_route and tfm.moe_experts to linalg and scf -----===//
//
// A mixture of experts runs per token. The routing: the router logits of
// all tokens are one product, then a loop over tokens chooses each token's
// top_k experts with scalar code (a handful of experts) and writes their
// indices and weights. The experts: a loop over tokens and their choices
// accumulates the chosen experts' SwiGLU outputs, each a product over a
// slice of the stacked weights at the expert's rows. Only the chosen
// experts' rows are read.
//
// The k-th choice is the largest logit below the previous choice in the
// order (logit descending, index ascending), so the choices need no set of
// taken experts and ties go to the lower index: (top_k + 1) x experts
// comparisons per token, the first pass finding the largest logit.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The body of a product's reduction: `acc + a * b`. Reassociation lets
/// LLVM vectorise the reduction (the order of a dot product's terms is not
/// part of the op's meaning).
void multiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  auto fast = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  Value product = arith::MulFOp::create(b, loc, args[0], args[1], fast);
  yield(b, loc, arith::AddFOp::create(b, loc, args[2], product, fast));
}

/// `matrix[rows, cols] * vector[cols]` over rows [first, first + count) of
/// `matrix`: a [count] tensor.
Value rowsTimesVector(OpBuilder &b, Location loc, Value matrix, Value first,
                      int64_t count, Value vector) {
  int64_t columns = shapeOf(matrix)[1];
  Value rows = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({count, columns}, b.getF32Type()), matrix,
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
             iterators(1, 1), multiplyAdd)
      .getResult(0);
}

/// One token's choices: the next expert after (`logit`, `expert`) in the
/// order (logit descending, index ascending).
struct Choice {
  Value logit;  ///< f32
  Value expert; ///< index
};

Value expOf(OpBuilder &b, Location loc, Value logit, Value maximum) {
  return math::ExpOp::create(b, loc,
                             arith::SubFOp::create(b, loc, logit, maximum));
}

/// Folds `body(i, value)` over i in [0, count).
Value forRange(OpBuilder &b, Location loc, int64_t count, Value initial,
               function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  return scf::ForOp::create(
             b, loc, index(b, loc, 0), index(b, loc, count), index(b, loc, 1),
             ValueRange{initial},
             [&](OpBuilder &lb, Location lloc, Value i, ValueRange carried) {
               scf::YieldOp::create(lb, lloc, body(lb, lloc, i, carried[0]));
             })
      .getResult(0);
}

/// The expert after `previous` in the order (logit descending, index
/// ascending).
Choice next(OpBuilder &b, Location loc, Choice previous, int64_t experts,
            function_ref<Value(OpBuilder &, Location, Value)> logitOf) {
  double inf = std::numeric_limits<double>::infinity();
  auto loop = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, experts), index(b, loc, 1),
      ValueRange{f32Constant(b, loc, -inf), index(b, loc, -1)},
      [&](OpBuilder &lb, Location lloc, Value expert, ValueRange best) {
        Value logit = logitOf(lb, lloc, expert);
        // Eligible: after the previous choice in the order.
        Value below = arith::CmpFOp::create(lb, lloc, arith::CmpFPredicate::OLT,
                                            logit, previous.logit);
        Value tied = arith::AndIOp::create(
            lb, lloc,
            arith::CmpFOp::create(lb, lloc, arith::CmpFPredicate::OEQ, logit,
                                  previous.logit),
            arith::CmpIOp::create(lb, lloc, arith::CmpIPredicate::sgt, expert,
                                  previous.expert));
        Value eligible = arith::OrIOp::create(lb, lloc, below, tied);
        // Better: the first eligible expert, or a larger logit (the lower
        // index keeps a tie).
        Value unset = arith::CmpIOp::create(lb, lloc, arith::CmpIPredicate::slt,
                                            best[1], index(lb, lloc, 0));
        Value larger = arith::CmpFOp::create(
            lb, lloc, arith::CmpFPredicate::OGT, logit, best[0]);
        Value take = arith::AndIOp::create(
            lb, lloc, eligible, arith::OrIOp::create(lb, lloc, unset, larger));
        scf::YieldOp::create(
            lb, lloc,
            ValueRange{
                arith::SelectOp::create(lb, lloc, take, logit, best[0]),
                arith::SelectOp::create(lb, lloc, take, expert, best[1])});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

/// Folds `body(choice, slot, values)` over the `topK` choices in order;
/// the values after the fold.
SmallVector<Value>
choose(OpBuilder &b, Location loc, int64_t experts, int64_t topK,
       function_ref<Value(OpBuilder &, Location, Value)> logitOf,
       ValueRange initial,
       function_ref<SmallVector<Value>(OpBuilder &, Location, Choice, Value,
                                       ValueRange)>
           body) {
  double inf = std::numeric_limits<double>::infinity();
  SmallVector<Value> carried = {f32Constant(b, loc, inf), index(b, loc, -1)};
  carried.append(initial.begin(), initial.end());
  auto loop = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, topK), index(b, loc, 1), carried,
      [&](OpBuilder &lb, Location lloc, Value slot, ValueRange values) {
        Choice choice =
            next(lb, lloc, {values[0], values[1]}, experts, logitOf);
        SmallVector<Value> yielded = {choice.logit, choice.expert};
        llvm::append_range(yielded,
                           body(lb, lloc, choice, slot, values.drop_front(2)));
        scf::YieldOp::create(lb, lloc, yielded);
      });
  return llvm::to_vector_of<Value>(loop.getResults().drop_front(2));
}

class MoERouteLowering : public OpRewritePattern<MoERouteOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MoERouteOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    int64_t tokens = shapeOf(op.getInput())[0];
    int64_t experts = op.getNumExperts(), topK = op.getTopK();
    // logits[t, e] = sum_d x[t, d] * router[e, d].
    SmallVector<AffineMap> logitMaps = {projection(context, 3, {0, 2}),
                                        projection(context, 3, {1, 2}),
                                        projection(context, 3, {0, 1})};
    Value logits =
        linalg::GenericOp::create(
            b, loc, RankedTensorType::get({tokens, experts}, b.getF32Type()),
            ValueRange{op.getInput(), op.getRouter()},
            filledTensor(b, loc, {tokens, experts}, 0.0), logitMaps,
            iterators(2, 1), multiplyAdd)
            .getResult(0);

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
    auto logitOf = [&](OpBuilder &nb, Location nloc, Value expert) {
      return tensor::ExtractOp::create(nb, nloc, logits,
                                       ValueRange{token, expert})
          .getResult();
    };

    // The largest logit, the softmax's stabiliser.
    double inf = std::numeric_limits<double>::infinity();
    Choice none = {f32Constant(b, loc, inf), index(b, loc, -1)};
    Value maximum = next(b, loc, none, experts, logitOf).logit;

    // One pass over the choices writes each slot's expert and the
    // numerator exp(logit - maximum) of its weight, and sums the
    // numerators in the order of the choices (top_k_softmax's
    // denominator).
    SmallVector<Value> chosen = choose(
        b, loc, experts, topK, logitOf,
        ValueRange{weightsAndExperts[0], weightsAndExperts[1],
                   f32Constant(b, loc, 0.0)},
        [&](OpBuilder &nb, Location nloc, Choice choice, Value slot,
            ValueRange written) -> SmallVector<Value> {
          Value numerator = expOf(nb, nloc, choice.logit, maximum);
          Value expert = arith::IndexCastOp::create(nb, nloc, nb.getI32Type(),
                                                    choice.expert);
          return {tensor::InsertOp::create(nb, nloc, numerator, written[0],
                                           ValueRange{token, slot}),
                  tensor::InsertOp::create(nb, nloc, expert, written[1],
                                           ValueRange{token, slot}),
                  arith::AddFOp::create(nb, nloc, written[2], numerator)};
        });
    // softmax_top_k's denominator is over every expert.
    Value denominator = chosen[2];
    if (op.getRouting() == Routing::softmax_top_k)
      denominator =
          forRange(b, loc, experts, f32Constant(b, loc, 0.0),
                   [&](OpBuilder &nb, Location nloc, Value expert, Value sum) {
                     return arith::AddFOp::create(
                         nb, nloc, sum,
                         expOf(nb, nloc, logitOf(nb, nloc, expert), maximum));
                   });

    Value weights =
        forRange(b, loc, topK, chosen[0],
                 [&](OpBuilder &nb, Location nloc, Value slot, Value written) {
                   Value numerator = tensor::ExtractOp::create(
                       nb, nloc, written, ValueRange{token, slot});
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
    Value row = forRange(
        b, loc, op.getTopK(), filledTensor(b, loc, {features}, 0.0),
        [&](OpBuilder &nb, Location nloc, Value slot, Value sum) {
          Value weight = tensor::ExtractOp::create(nb, nloc, op.getWeights(),
                                                   ValueRange{token, slot});
          Value chosen = arith::IndexCastOp::create(
              nb, nloc, nb.getIndexType(),
              tensor::ExtractOp::create(nb, nloc, op.getExperts(),
                                        ValueRange{token, slot}));
          // Clamped: the matrices are never read outside their rows.
          Value expert = arith::MinSIOp::create(
              nb, nloc,
              arith::MaxSIOp::create(nb, nloc, chosen, index(nb, nloc, 0)),
              index(nb, nloc, experts - 1));
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
              Value g = args[0];
              Value sigmoid = arith::DivFOp::create(
                  nb, nloc, f32Constant(nb, nloc, 1.0),
                  arith::AddFOp::create(
                      nb, nloc, f32Constant(nb, nloc, 1.0),
                      math::ExpOp::create(nb, nloc,
                                          arith::NegFOp::create(nb, nloc, g))));
              Value silu = arith::MulFOp::create(nb, nloc, g, sigmoid);
              yield(nb, nloc, arith::MulFOp::create(nb, nloc, silu, args[1]));
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
