//===- MoERouting.cpp - What both MoE lowerings compute alike -------------===//
#include "passes/Conversion/TfmToLinalg/MoERouting.h"

#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::moe;

static Value index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

static Value expOf(OpBuilder &b, Location loc, Value logit, Value maximum) {
  return math::ExpOp::create(b, loc,
                             arith::SubFOp::create(b, loc, logit, maximum));
}

void moe::multiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  auto fast = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  auto wide = [&](Value factor) -> Value {
    if (factor.getType().isF32())
      return factor;
    return arith::ExtFOp::create(b, loc, b.getF32Type(), factor);
  };
  // One statement per op: the IR's order does not depend on the host
  // compiler's order of argument evaluation.
  Value lhs = wide(args[0]);
  Value rhs = wide(args[1]);
  Value product = arith::MulFOp::create(b, loc, lhs, rhs, fast);
  yield(b, loc, arith::AddFOp::create(b, loc, args[2], product, fast));
}

Value moe::TokenLogits::operator()(OpBuilder &b, Location loc,
                                   Value expert) const {
  return tensor::ExtractOp::create(b, loc, logits, ValueRange{token, expert});
}

Value moe::routerLogits(OpBuilder &b, Location loc, MoERouteOp op) {
  MLIRContext *context = b.getContext();
  int64_t tokens = shapeOf(op.getInput())[0];
  int64_t experts = op.getNumExperts();
  SmallVector<AffineMap> maps = {projection(context, 3, {0, 2}),
                                 projection(context, 3, {1, 2}),
                                 projection(context, 3, {0, 1})};
  return linalg::GenericOp::create(
             b, loc, RankedTensorType::get({tokens, experts}, b.getF32Type()),
             ValueRange{op.getInput(), op.getRouter()},
             filledTensor(b, loc, {tokens, experts}, 0.0), maps,
             iterators(2, 1), multiplyAdd)
      .getResult(0);
}

Value moe::foldRange(
    OpBuilder &b, Location loc, int64_t count, Value initial,
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
static Choice next(OpBuilder &b, Location loc, Choice previous, int64_t experts,
                   LogitOf logitOf) {
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

/// Before every expert in the order.
static Choice noChoice(OpBuilder &b, Location loc) {
  double inf = std::numeric_limits<double>::infinity();
  return {f32Constant(b, loc, inf), index(b, loc, -1)};
}

Value moe::largestLogit(OpBuilder &b, Location loc, int64_t experts,
                        LogitOf logitOf) {
  return next(b, loc, noChoice(b, loc), experts, logitOf).logit;
}

SmallVector<Value>
moe::foldChoices(OpBuilder &b, Location loc, int64_t experts, int64_t topK,
                 LogitOf logitOf, Value maximum, ValueRange initial,
                 function_ref<SmallVector<Value>(OpBuilder &, Location, Choice,
                                                 Value, Value, ValueRange)>
                     body) {
  Choice none = noChoice(b, loc);
  SmallVector<Value> carried = {none.logit, none.expert};
  carried.append(initial.begin(), initial.end());
  auto loop = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, topK), index(b, loc, 1), carried,
      [&](OpBuilder &lb, Location lloc, Value slot, ValueRange values) {
        Choice choice =
            next(lb, lloc, {values[0], values[1]}, experts, logitOf);
        Value numerator = expOf(lb, lloc, choice.logit, maximum);
        SmallVector<Value> yielded = {choice.logit, choice.expert};
        llvm::append_range(yielded, body(lb, lloc, choice, slot, numerator,
                                         values.drop_front(2)));
        scf::YieldOp::create(lb, lloc, yielded);
      });
  return llvm::to_vector_of<Value>(loop.getResults().drop_front(2));
}

Value moe::routingDenominator(OpBuilder &b, Location loc, Routing routing,
                              int64_t experts, LogitOf logitOf, Value maximum,
                              Value chosenSum) {
  if (routing != Routing::softmax_top_k)
    return chosenSum;
  return foldRange(b, loc, experts, f32Constant(b, loc, 0.0),
                   [&](OpBuilder &nb, Location nloc, Value expert, Value sum) {
                     return arith::AddFOp::create(
                         nb, nloc, sum,
                         expOf(nb, nloc, logitOf(nb, nloc, expert), maximum));
                   });
}

Value moe::clampedExpert(OpBuilder &b, Location loc, Value chosen,
                         int64_t experts) {
  Value expert = arith::IndexCastOp::create(b, loc, b.getIndexType(), chosen);
  Value last = index(b, loc, experts - 1);
  Value low = arith::MaxSIOp::create(b, loc, expert, index(b, loc, 0));
  return arith::MinSIOp::create(b, loc, low, last);
}

Value moe::swiglu(OpBuilder &b, Location loc, Value gate, Value up) {
  Value one = f32Constant(b, loc, 1.0);
  Value sigmoid = arith::DivFOp::create(
      b, loc, one,
      arith::AddFOp::create(
          b, loc, one,
          math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, gate))));
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, gate, sigmoid), up);
}
