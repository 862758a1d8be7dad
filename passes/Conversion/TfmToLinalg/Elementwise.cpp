//===- Elementwise.cpp - tfm elementwise ops to linalg.generic ------------===//
#include "dialect/TfmOps.h"
#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

namespace {

using ScalarFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange args)>;

/// One parallel generic over [sequence, features] applying `fn` to the
/// elements of `inputs`.
Value mapElements(OpBuilder &b, Location loc, ValueRange inputs, ScalarFn fn) {
  ArrayRef<int64_t> shape = shapeOf(inputs.front());
  AffineMap identity = b.getMultiDimIdentityMap(shape.size());
  SmallVector<AffineMap> maps(inputs.size() + 1, identity);
  return linalg::GenericOp::create(
             b, loc, inputs.front().getType(), inputs,
             emptyTensor(b, loc, shape), maps, iterators(shape.size()),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value result = fn(nb, nloc, args.drop_back());
               yield(nb, nloc, result);
             })
      .getResult(0);
}

/// GPT-2's gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Value gelu(OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Value cube =
      arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
  Value inner = arith::AddFOp::create(
      b, loc, x,
      arith::MulFOp::create(b, loc, f32Constant(b, loc, 0.044715), cube));
  Value scaled = arith::MulFOp::create(
      b, loc, f32Constant(b, loc, 0.7978845608028654), inner);
  Value onePlusTanh = arith::AddFOp::create(
      b, loc, f32Constant(b, loc, 1.0), math::TanhOp::create(b, loc, scaled));
  Value half = arith::MulFOp::create(b, loc, f32Constant(b, loc, 0.5), x);
  return arith::MulFOp::create(b, loc, half, onePlusTanh);
}

/// The exact GELU (BERT's): 0.5 x (1 + erf(x / sqrt(2))).
Value geluErf(OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Value scaled =
      arith::MulFOp::create(b, loc, x, f32Constant(b, loc, M_SQRT1_2));
  Value onePlusErf = arith::AddFOp::create(b, loc, f32Constant(b, loc, 1.0),
                                           math::ErfOp::create(b, loc, scaled));
  Value half = arith::MulFOp::create(b, loc, f32Constant(b, loc, 0.5), x);
  return arith::MulFOp::create(b, loc, half, onePlusErf);
}

struct GeluLowering : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    bool exact = op.getApproximation() == GeluApproximation::erf;
    rewriter.replaceOp(op, mapElements(rewriter, op.getLoc(),
                                       ValueRange{op.getInput()},
                                       exact ? geluErf : gelu));
    return success();
  }
};

/// x * sigmoid(x) = x / (1 + exp(-x)).
Value silu(OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Value expNeg = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value denominator =
      arith::AddFOp::create(b, loc, f32Constant(b, loc, 1.0), expNeg);
  return arith::DivFOp::create(b, loc, x, denominator);
}

/// max(x, 0); a NaN stays NaN, as torch.relu keeps it.
Value relu(OpBuilder &b, Location loc, ValueRange args) {
  return arith::MaximumFOp::create(b, loc, args[0], f32Constant(b, loc, 0.0));
}

struct SoftCapLowering : OpRewritePattern<SoftCapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftCapOp op,
                                PatternRewriter &rewriter) const override {
    double cap = op.getCap().convertToDouble();
    rewriter.replaceOp(
        op, mapElements(rewriter, op.getLoc(), ValueRange{op.getInput()},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return softCap(b, loc, args[0], cap);
                        }));
    return success();
  }
};

template <typename SourceOp, typename ArithOp>
struct BinaryLowering : OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    Value result =
        mapElements(rewriter, op.getLoc(), ValueRange{op.getLhs(), op.getRhs()},
                    [](OpBuilder &b, Location loc, ValueRange args) -> Value {
                      return ArithOp::create(b, loc, args[0], args[1]);
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename SourceOp, Value (*Fn)(OpBuilder &, Location, ValueRange)>
struct UnaryLowering : OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, mapElements(rewriter, op.getLoc(), ValueRange{op.getInput()}, Fn));
    return success();
  }
};

} // namespace

void mlir::tfm::populateTfmElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<BinaryLowering<AddOp, arith::AddFOp>,
           BinaryLowering<MulOp, arith::MulFOp>, GeluLowering, SoftCapLowering,
           UnaryLowering<SiluOp, silu>, UnaryLowering<ReluOp, relu>>(
          patterns.getContext());
}
