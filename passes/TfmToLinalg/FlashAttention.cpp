//===- FlashAttention.cpp - tfm.flash_attention to a fused kernel ---------===//
//
// One parallel loop over (query row, head); each iteration keeps its query
// (pre-scaled by 1/sqrt(head_dim)), a running maximum m, a running sum l and
// an output accumulator in registers and walks the keys it may see in
// blocks of B:
//
//   scores[j] = q . k[jb + j]       for j < n = min(B, visible - jb)
//   m'        = max(m, max_j scores[j])
//   p         = exp(scores - m')     (lanes past n: exp(-inf) = 0)
//   l         = l * exp(m - m') + sum_j p[j]
//   acc       = acc * exp(m - m') + sum_j p[j] * v[jb + j]
//
// and writes acc / l. A causal query stops at its own position (visible =
// offset + s + 1): masked keys are never read. Nothing larger than one
// block of scores (a vector) exists.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"
#include "passes/TfmToLinalg/LoweringUtils.h"
#include "passes/TfmToLinalg/TfmToLinalg.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfm;

namespace {

class FlashAttentionLowering : public OpRewritePattern<FlashAttentionOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FlashAttentionOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t heads = op.getNumHeads();
    int64_t headDim = op.getHeadDim();
    int64_t group = heads / op.getNumKvHeads();
    int64_t queries = shapeOf(op.getQuery())[0];
    auto rowType = VectorType::get({headDim}, b.getF32Type());
    auto blockType = VectorType::get({op.getBlockKeys()}, b.getF32Type());

    Value keys = op.getKey(), values = op.getValue();
    Value numKeys = tensor::DimOp::create(b, loc, keys, 0);
    Value init = emptyTensor(b, loc, shapeOf(op.getQuery()));
    auto forall = scf::ForallOp::create(
        b, loc,
        ArrayRef<OpFoldResult>{b.getIndexAttr(queries), b.getIndexAttr(heads)},
        ValueRange{init}, std::nullopt);

    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forall.getBody());
    Value query = forall.getInductionVar(0), head = forall.getInductionVar(1);
    Value queryColumn = multiply(b, loc, head, headDim);
    Value kvColumn = multiply(
        b, loc, arith::DivUIOp::create(b, loc, head, index(b, loc, group)),
        headDim);

    Value q = readRow(b, loc, rowType, op.getQuery(), query, queryColumn);
    q = arith::MulFOp::create(
        b, loc, q, splat(b, loc, rowType, 1.0 / std::sqrt(double(headDim))));

    Value visible = numKeys;
    if (op.getCausal()) {
      Value ownPosition = arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, op.getOffset(), query),
          index(b, loc, 1));
      visible = arith::MinUIOp::create(b, loc, ownPosition, numKeys);
    }

    double negInf = -std::numeric_limits<double>::infinity();
    Value blockKeys = index(b, loc, op.getBlockKeys());
    auto blocks = scf::ForOp::create(
        b, loc, index(b, loc, 0), visible, blockKeys,
        ValueRange{f32Constant(b, loc, negInf), f32Constant(b, loc, 0.0),
                   splat(b, loc, rowType, 0.0)},
        [&](OpBuilder &nb, Location nloc, Value first, ValueRange state) {
          Value count = arith::MinUIOp::create(
              nb, nloc, blockKeys,
              arith::SubIOp::create(nb, nloc, visible, first));
          // Scores of this block; lanes past `count` stay -inf.
          Value scores = forEachKey(
              nb, nloc, count, splat(nb, nloc, blockType, negInf),
              [&](OpBuilder &kb, Location kloc, Value j,
                  Value partial) -> Value {
                Value row = arith::AddIOp::create(kb, kloc, first, j);
                Value k = readRow(kb, kloc, rowType, keys, row, kvColumn);
                Value dot = vector::ReductionOp::create(
                    kb, kloc, vector::CombiningKind::ADD,
                    arith::MulFOp::create(kb, kloc, q, k));
                return vector::InsertOp::create(kb, kloc, dot, partial, j);
              });
          Value maximum = arith::MaximumFOp::create(
              nb, nloc, state[0],
              vector::ReductionOp::create(
                  nb, nloc, vector::CombiningKind::MAXNUMF, scores));
          Value weights = math::ExpOp::create(
              nb, nloc,
              arith::SubFOp::create(
                  nb, nloc, scores,
                  vector::BroadcastOp::create(nb, nloc, blockType, maximum)));
          Value rescale = math::ExpOp::create(
              nb, nloc, arith::SubFOp::create(nb, nloc, state[0], maximum));
          Value sum = arith::AddFOp::create(
              nb, nloc, arith::MulFOp::create(nb, nloc, state[1], rescale),
              vector::ReductionOp::create(nb, nloc, vector::CombiningKind::ADD,
                                          weights));
          Value rescaled = arith::MulFOp::create(
              nb, nloc, state[2],
              vector::BroadcastOp::create(nb, nloc, rowType, rescale));
          Value accumulated = forEachKey(
              nb, nloc, count, rescaled,
              [&](OpBuilder &kb, Location kloc, Value j,
                  Value partial) -> Value {
                Value row = arith::AddIOp::create(kb, kloc, first, j);
                Value v = readRow(kb, kloc, rowType, values, row, kvColumn);
                Value weight = vector::ExtractOp::create(kb, kloc, weights, j);
                return vector::FMAOp::create(
                    kb, kloc,
                    vector::BroadcastOp::create(kb, kloc, rowType, weight), v,
                    partial);
              });
          scf::YieldOp::create(nb, nloc, ValueRange{maximum, sum, accumulated});
        });

    Value out = arith::DivFOp::create(
        b, loc, blocks.getResult(2),
        vector::BroadcastOp::create(b, loc, rowType, blocks.getResult(1)));
    // The result goes into this iteration's slice of the shared output, so
    // that bufferization writes it in place (no temporary per iteration).
    Value shared = forall.getRegionIterArgs()[0];
    SmallVector<OpFoldResult> offsets = {query, queryColumn};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                       b.getIndexAttr(headDim)};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    Value slice =
        tensor::ExtractSliceOp::create(b, loc, shared, offsets, sizes, strides);
    Value zero = index(b, loc, 0);
    Value tile = vector::TransferWriteOp::create(b, loc, out, slice,
                                                 ValueRange{zero, zero},
                                                 ArrayRef<bool>{true})
                     .getResult();

    b.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, tile, shared, offsets, sizes,
                                          strides);
    b.replaceOp(op, forall.getResult(0));
    return success();
  }

private:
  static Value index(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  static Value multiply(OpBuilder &b, Location loc, Value value,
                        int64_t factor) {
    return arith::MulIOp::create(b, loc, value, index(b, loc, factor));
  }

  static Value splat(OpBuilder &b, Location loc, VectorType type,
                     double value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(value)));
  }

  /// `row[column : column + head_dim]` of a [rows, features] tensor.
  static Value readRow(OpBuilder &b, Location loc, VectorType type,
                       Value tensor, Value row, Value column) {
    // In bounds: the padding value is never read.
    return vector::TransferReadOp::create(
        b, loc, type, tensor, ValueRange{row, column}, f32Constant(b, loc, 0.0),
        ArrayRef<bool>{true});
  }

  /// Folds `body(j, partial)` over keys j in [0, count) of a block.
  static Value
  forEachKey(OpBuilder &b, Location loc, Value count, Value initial,
             function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
    auto loop = scf::ForOp::create(
        b, loc, index(b, loc, 0), count, index(b, loc, 1), ValueRange{initial},
        [&](OpBuilder &lb, Location lloc, Value j, ValueRange partial) {
          scf::YieldOp::create(lb, lloc, body(lb, lloc, j, partial[0]));
        });
    return loop.getResult(0);
  }
};

} // namespace

void mlir::tfm::populateTfmFlashAttentionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FlashAttentionLowering>(patterns.getContext());
}
