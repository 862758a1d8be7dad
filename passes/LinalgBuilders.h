//===- LinalgBuilders.h - Small builders of linalg/tensor IR ----*- C++ -*-===//
//
// Shared by the tfm -> linalg conversion and the code generation passes
// that build linalg ops (attention decomposition and kernels).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_LINALGBUILDERS_H
#define TFMC_PASSES_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace mlir::tfm {

/// An f32 constant.
inline Value f32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

/// `cap * tanh(x / cap)` of an f32 scalar or vector `x` (soft-capping,
/// Gemma 2's attention scores and logits).
inline Value softCap(OpBuilder &b, Location loc, Value x, double cap) {
  auto constant = [&](double value) -> Value {
    if (auto vector = dyn_cast<VectorType>(x.getType()))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vector, b.getF32FloatAttr(value)));
    return f32Constant(b, loc, value);
  };
  Value squashed = math::TanhOp::create(
      b, loc, arith::MulFOp::create(b, loc, x, constant(1.0 / cap)));
  return arith::MulFOp::create(b, loc, constant(cap), squashed);
}

/// A tensor of `shape` filled with `value`, the init of a reduction.
inline Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                          double value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  return linalg::FillOp::create(b, loc, f32Constant(b, loc, value), empty)
      .getResult(0);
}

/// An uninitialised f32 tensor of `shape`, the init of a parallel generic.
inline Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  return tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
}

/// Affine map over `numDims` loops selecting `results` (dimension indices).
inline AffineMap projection(MLIRContext *context, unsigned numDims,
                            ArrayRef<unsigned> results) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : results)
    exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(numDims, 0, exprs, context);
}

/// `count` parallel loops followed by `reductions` reduction loops.
inline SmallVector<utils::IteratorType> iterators(unsigned parallel,
                                                  unsigned reductions = 0) {
  SmallVector<utils::IteratorType> kinds(parallel,
                                         utils::IteratorType::parallel);
  kinds.append(reductions, utils::IteratorType::reduction);
  return kinds;
}

/// Terminates a linalg.generic body with `value`.
inline void yield(OpBuilder &b, Location loc, Value value) {
  linalg::YieldOp::create(b, loc, ValueRange{value});
}

/// Shape of a ranked tensor value.
inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// An embedding lookup: `out[s, d] = row(clamp(tokens[s]), d) (* scale)` as
/// a parallel generic over `resultType` ([sequence, features] f32), each id
/// clamped into `[0, vocab)` (a bad id must not read outside the weights;
/// the runtime rejects it before). `row` builds one f32 feature of a row in
/// the generic's body from the clamped id and the feature index.
inline Value
gatherRows(OpBuilder &b, Location loc, Value tokens,
           RankedTensorType resultType, int64_t vocab,
           std::optional<APFloat> scale,
           function_ref<Value(OpBuilder &, Location, Value, Value)> row) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {projection(context, 2, {0}),
                                 projection(context, 2, {0, 1})};
  return linalg::GenericOp::create(
             b, loc, resultType, tokens,
             emptyTensor(b, loc, resultType.getShape()), maps, iterators(2),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               auto index = [&](int64_t value) -> Value {
                 return arith::ConstantIndexOp::create(nb, nloc, value);
               };
               Value id = arith::IndexCastOp::create(
                   nb, nloc, nb.getIndexType(), args[0]);
               id = arith::MaxSIOp::create(nb, nloc, id, index(0));
               id = arith::MinSIOp::create(nb, nloc, id, index(vocab - 1));
               Value feature = linalg::IndexOp::create(nb, nloc, 1);
               Value value = row(nb, nloc, id, feature);
               if (scale)
                 value = arith::MulFOp::create(
                     nb, nloc, value,
                     f32Constant(nb, nloc, scale->convertToDouble()));
               yield(nb, nloc, value);
             })
      .getResult(0);
}

} // namespace mlir::tfm

#endif // TFMC_PASSES_LINALGBUILDERS_H
