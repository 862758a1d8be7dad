//===- MoEGathers.cpp - tfm.moe_route and tfm.moe_experts as gathers ------===//
//
// The form of a mixture of experts in which every step is a structured op
// over tokens and choices, so that a target without a host loop (a GPU)
// runs each step as a kernel and reads the choices inside it:
//
// - routing: the router product, then one op over [tokens, top_k] whose
//   every point walks its token's choices (MoERouting.h) and keeps its own
//   slot's expert and weight;
// - experts: gate[t, k, h] and up[t, k, h] are products over the chosen
//   expert's rows, gathered in the body (tensor.extract at the row
//   clamp(experts[t, k]) * hidden + h), SwiGLU over [tokens, top_k, hidden],
//   down[t, k, f] likewise, and the weighted sum over k last, in the order
//   of the choices.
//
// Only the chosen experts' rows are read, as in the loops form (MoE.cpp),
// and the choices, weights and sums are the same.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/MoERouting.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

class MoERouteGathers : public OpRewritePattern<MoERouteOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MoERouteOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    int64_t tokens = shapeOf(op.getInput())[0];
    int64_t experts = op.getNumExperts(), topK = op.getTopK();
    Routing routing = op.getRouting();
    Value logits = moe::routerLogits(b, loc, op);

    // Each (token, slot) walks all of its token's choices: the
    // denominator sums their numerators in order, and the slot keeps its
    // own. top_k x experts comparisons a point, a handful of experts.
    auto chosenType = RankedTensorType::get({tokens, topK}, b.getI32Type());
    SmallVector<AffineMap> maps(2, projection(context, 2, {0, 1}));
    auto route = linalg::GenericOp::create(
        b, loc,
        TypeRange{RankedTensorType::get({tokens, topK}, b.getF32Type()),
                  chosenType},
        ValueRange{},
        ValueRange{emptyTensor(b, loc, {tokens, topK}),
                   tensor::EmptyOp::create(b, loc, chosenType.getShape(),
                                           b.getI32Type())},
        maps, iterators(2), [&](OpBuilder &nb, Location nloc, ValueRange) {
          Value token = linalg::IndexOp::create(nb, nloc, 0);
          Value ownSlot = linalg::IndexOp::create(nb, nloc, 1);
          moe::TokenLogits logitOf{logits, token};
          Value maximum = moe::largestLogit(nb, nloc, experts, logitOf);
          SmallVector<Value> walked = moe::foldChoices(
              nb, nloc, experts, topK, logitOf, maximum,
              ValueRange{f32Constant(nb, nloc, 0.0), index(nb, nloc, 0),
                         f32Constant(nb, nloc, 0.0)},
              [&](OpBuilder &fb, Location floc, moe::Choice choice, Value slot,
                  Value numerator, ValueRange values) -> SmallVector<Value> {
                Value own = arith::CmpIOp::create(
                    fb, floc, arith::CmpIPredicate::eq, slot, ownSlot);
                return {arith::AddFOp::create(fb, floc, values[0], numerator),
                        arith::SelectOp::create(fb, floc, own, choice.expert,
                                                values[1]),
                        arith::SelectOp::create(fb, floc, own, numerator,
                                                values[2])};
              });
          Value denominator = moe::routingDenominator(
              nb, nloc, routing, experts, logitOf, maximum, walked[0]);
          Value weight =
              arith::DivFOp::create(nb, nloc, walked[2], denominator);
          Value expert =
              arith::IndexCastOp::create(nb, nloc, nb.getI32Type(), walked[1]);
          linalg::YieldOp::create(nb, nloc, ValueRange{weight, expert});
        });
    b.replaceOp(op, route.getResults());
    return success();
  }
};

class MoEExpertsGathers : public OpRewritePattern<MoEExpertsOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MoEExpertsOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    int64_t tokens = shapeOf(op.getInput())[0];
    int64_t features = shapeOf(op.getInput())[1];
    int64_t topK = shapeOf(op.getExperts())[1];
    int64_t hidden = op.getExpertHidden();

    // gate and up read the token's row of the input for every choice.
    AffineMap tokenRow = projection(context, 4, {0, 3});
    Value gate = gatheredProducts(b, loc, op, op.getInput(), tokenRow,
                                  op.getGate(), hidden);
    Value up = gatheredProducts(b, loc, op, op.getInput(), tokenRow, op.getUp(),
                                hidden);
    SmallVector<AffineMap> elementwise(3, projection(context, 3, {0, 1, 2}));
    Value inner =
        linalg::GenericOp::create(
            b, loc, gate.getType(), ValueRange{gate, up},
            emptyTensor(b, loc, {tokens, topK, hidden}), elementwise,
            iterators(3),
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              yield(nb, nloc, moe::swiglu(nb, nloc, args[0], args[1]));
            })
            .getResult(0);
    // down reads each choice's own hidden units.
    Value down =
        gatheredProducts(b, loc, op, inner, projection(context, 4, {0, 1, 3}),
                         op.getDown(), features);

    // out[t, f] = sum_k weights[t, k] * down[t, k, f], k in order from an
    // output of 0. Loops (t, k, f): the choices are not the innermost loop,
    // so each output sums its few terms alone.
    SmallVector<AffineMap> sumMaps = {projection(context, 3, {0, 1}),
                                      projection(context, 3, {0, 1, 2}),
                                      projection(context, 3, {0, 2})};
    SmallVector<utils::IteratorType> sumIterators = {
        utils::IteratorType::parallel, utils::IteratorType::reduction,
        utils::IteratorType::parallel};
    Value output =
        linalg::GenericOp::create(
            b, loc, RankedTensorType::get({tokens, features}, b.getF32Type()),
            ValueRange{op.getWeights(), down},
            filledTensor(b, loc, {tokens, features}, 0.0), sumMaps,
            sumIterators,
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              Value scaled = arith::MulFOp::create(nb, nloc, args[0], args[1]);
              yield(nb, nloc, arith::AddFOp::create(nb, nloc, args[2], scaled));
            })
            .getResult(0);
    b.replaceOp(op, output);
    return success();
  }

private:
  /// out[t, k, r] = sum_c input(t, k, c) * matrix[expert(t, k) * rows + r,
  /// c] over loops (t, k, r, c), `inputMap` reading the input: a
  /// [tokens, top_k, rows] product of each choice's expert's `rows` rows.
  static Value gatheredProducts(OpBuilder &b, Location loc, MoEExpertsOp op,
                                Value input, AffineMap inputMap, Value matrix,
                                int64_t rows) {
    MLIRContext *context = b.getContext();
    int64_t tokens = shapeOf(op.getExperts())[0];
    int64_t topK = shapeOf(op.getExperts())[1];
    int64_t experts = op.getNumExperts();
    SmallVector<AffineMap> maps = {inputMap, projection(context, 4, {0, 1}),
                                   projection(context, 4, {0, 1, 2})};
    return linalg::GenericOp::create(
               b, loc,
               RankedTensorType::get({tokens, topK, rows}, b.getF32Type()),
               ValueRange{input, op.getExperts()},
               filledTensor(b, loc, {tokens, topK, rows}, 0.0), maps,
               iterators(3, 1),
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 // One statement per op: the IR's order does not depend
                 // on the host compiler's order of argument evaluation.
                 Value expert = moe::clampedExpert(nb, nloc, args[1], experts);
                 Value unit = linalg::IndexOp::create(nb, nloc, 2);
                 Value first = arith::MulIOp::create(nb, nloc, expert,
                                                     index(nb, nloc, rows));
                 Value row = arith::AddIOp::create(nb, nloc, first, unit);
                 Value column = linalg::IndexOp::create(nb, nloc, 3);
                 Value weight = tensor::ExtractOp::create(
                     nb, nloc, matrix, ValueRange{row, column});
                 moe::multiplyAdd(nb, nloc, {args[0], weight, args[2]});
               })
        .getResult(0);
  }
};

} // namespace

void mlir::tfm::populateTfmMoEToGathersPatterns(RewritePatternSet &patterns) {
  patterns.add<MoERouteGathers, MoEExpertsGathers>(patterns.getContext());
}
