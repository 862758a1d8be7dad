//===- DecomposeAttention.cpp - tfm.attention_kernel as linalg ops --------===//
//
// The reference lowering of attention, for any target without a kernel of
// its own (and the CPU's with --fuse-attention=false): scores [heads,
// queries, keys] are materialised, masked and normalised with a numerically
// stable softmax, then contracted with the values. Heads are split by reshaping
// [rows, heads * head_dim] to [rows, heads, head_dim] (head-major keys and
// values already are [kv_heads, keys, head_dim]); a query head h reads KV head
// h floordiv group. A relative position bias (T5) is looked up per (head,
// query, key) from the bucket of the key's distance, computed with integer
// compares.
//
//===----------------------------------------------------------------------===//
#include "dialect/RelativeBuckets.h"
#include "dialect/TfmOps.h"
#include "passes/Codegen/Common/Passes.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMDECOMPOSEATTENTION
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// [rows, heads * headDim] -> [rows, heads, headDim]; rows may be dynamic
/// (cached keys and values: the rows written so far).
Value splitHeads(OpBuilder &b, Location loc, Value value, int64_t heads) {
  ArrayRef<int64_t> shape = shapeOf(value);
  auto type = RankedTensorType::get(
      {shape[0], heads, shape[1] / heads},
      cast<RankedTensorType>(value.getType()).getElementType());
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
  SmallVector<OpFoldResult> outputShape = {
      tensor::getMixedSize(b, loc, value, 0), b.getIndexAttr(heads),
      b.getIndexAttr(shape[1] / heads)};
  return tensor::ExpandShapeOp::create(b, loc, type, value, groups,
                                       outputShape);
}

/// An f32 tensor of `sizes` (static or not), optionally filled.
Value makeTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                 std::optional<double> fill = std::nullopt) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  if (!fill)
    return empty;
  return linalg::FillOp::create(b, loc, f32Constant(b, loc, *fill), empty)
      .getResult(0);
}

/// `value` in f32: keys and values of an f16 cache are widened as they are
/// read.
Value widened(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isF32())
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

class DecomposeAttention : public OpRewritePattern<AttentionKernelOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionKernelOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    int64_t heads = op.getNumHeads(), kvHeads = op.getNumKvHeads();
    int64_t headDim = op.getHeadDim(), group = heads / kvHeads;
    int64_t queries = shapeOf(op.getQuery())[0];
    bool headMajor = op.isHeadMajor();
    OpFoldResult keys =
        tensor::getMixedSize(b, loc, op.getKey(), op.getKeysDim());
    OpFoldResult headsSize = b.getIndexAttr(heads);
    OpFoldResult queriesSize = b.getIndexAttr(queries);
    Value q = splitHeads(b, loc, op.getQuery(), heads);
    Value k =
        headMajor ? op.getKey() : splitHeads(b, loc, op.getKey(), kvHeads);
    Value v =
        headMajor ? op.getValue() : splitHeads(b, loc, op.getValue(), kvHeads);
    // Element (key t, kv head, feature d) of k or v.
    auto keyValueMap = [&](unsigned numDims, AffineExpr t, AffineExpr kvHead,
                           AffineExpr d) {
      SmallVector<AffineExpr> results = {t, kvHead, d};
      if (headMajor)
        std::swap(results[0], results[1]);
      return AffineMap::get(numDims, 0, results, context);
    };

    AffineExpr h = getAffineDimExpr(0, context);
    AffineExpr kvHead = h.floorDiv(group);

    // scores[h, s, t] = sum_d q[s, h, d] * k[t, h / group, d]; loops (h,s,t,d).
    AffineExpr s = getAffineDimExpr(1, context),
               t = getAffineDimExpr(2, context),
               d = getAffineDimExpr(3, context);
    SmallVector<AffineMap> scoreMaps = {
        AffineMap::get(4, 0, {s, h, d}, context), keyValueMap(4, t, kvHead, d),
        AffineMap::get(4, 0, {h, s, t}, context)};
    Value scoreInit = makeTensor(b, loc, {headsSize, queriesSize, keys}, 0.0);
    Value scores =
        linalg::GenericOp::create(
            b, loc, scoreInit.getType(), ValueRange{q, k}, scoreInit, scoreMaps,
            iterators(3, 1),
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              Value product = arith::MulFOp::create(nb, nloc, args[0],
                                                    widened(nb, nloc, args[1]));
              yield(nb, nloc,
                    arith::AddFOp::create(nb, nloc, args[2], product));
            })
            .getResult(0);

    // Masked, scaled (and soft-capped) scores, plus ALiBi or relative
    // position biases; -inf where a key is hidden from the query.
    double scale = op.getScoreScale();
    std::optional<double> cap = op.getScoreCap();
    MaskKind mask = op.getMask();
    int64_t window = op.getWindow().value_or(0);
    std::optional<uint64_t> ring = op.getRing();
    Value offset = op.getOffset(), slopes = op.getSlopes();
    Value table = op.getRelativeBias();
    std::optional<RelativeBuckets> buckets;
    if (table)
      buckets = relativeBuckets(shapeOf(table)[0], *op.getMaxDistance(),
                                mask == MaskKind::bidirectional);
    auto maskedScore = [&](OpBuilder &nb, Location nloc, Value score) -> Value {
      Value scaled =
          arith::MulFOp::create(nb, nloc, score, f32Constant(nb, nloc, scale));
      if (cap)
        scaled = softCap(nb, nloc, scaled, *cap);
      if (mask == MaskKind::bidirectional && !slopes && !table)
        return scaled;
      Value query = linalg::IndexOp::create(nb, nloc, 1);
      Value key = linalg::IndexOp::create(nb, nloc, 2);
      Value position = arith::AddIOp::create(nb, nloc, query, offset);
      // How far before the query's position the key's lies (negative:
      // after it). In a ring of R, key row `key` holds position - d with
      // d = (position + R - key) mod R.
      Value distance;
      Value hidden;
      if (ring) {
        Value slots = arith::ConstantIndexOp::create(nb, nloc, *ring);
        distance = arith::RemUIOp::create(
            nb, nloc,
            arith::SubIOp::create(
                nb, nloc, arith::AddIOp::create(nb, nloc, position, slots),
                key),
            slots);
        // Hidden before position 0 or outside the window.
        Value beforeStart = arith::CmpIOp::create(
            nb, nloc, arith::CmpIPredicate::ugt, distance, position);
        Value tooOld = arith::CmpIOp::create(
            nb, nloc, arith::CmpIPredicate::uge, distance,
            arith::ConstantIndexOp::create(nb, nloc, window));
        hidden = arith::OrIOp::create(nb, nloc, beforeStart, tooOld);
      } else {
        if (slopes || table)
          distance = arith::SubIOp::create(nb, nloc, position, key);
        if (mask != MaskKind::bidirectional) {
          // Causal: key > position is hidden. A window of W also hides
          // key + W <= position.
          hidden = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::ugt,
                                         key, position);
          if (mask == MaskKind::sliding_window) {
            Value reach = arith::AddIOp::create(
                nb, nloc, key,
                arith::ConstantIndexOp::create(nb, nloc, window));
            Value tooOld = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::ule, reach, position);
            hidden = arith::OrIOp::create(nb, nloc, hidden, tooOld);
          }
        }
      }
      if (slopes) {
        Value head = linalg::IndexOp::create(nb, nloc, 0);
        Value slope =
            tensor::ExtractOp::create(nb, nloc, slopes, ValueRange{head});
        Value backwards = arith::SIToFPOp::create(
            nb, nloc, nb.getF32Type(),
            arith::IndexCastOp::create(nb, nloc, nb.getI64Type(), distance));
        // slope * (key position - query position) = -slope * distance.
        scaled = arith::SubFOp::create(
            nb, nloc, scaled,
            arith::MulFOp::create(nb, nloc, slope, backwards));
      }
      if (table) {
        // The bucket of key position - query position = -distance.
        Value relative = arith::SubIOp::create(
            nb, nloc, arith::ConstantIndexOp::create(nb, nloc, 0), distance);
        Value bucket = emitRelativeBucket(nb, nloc, relative, *buckets);
        Value head = linalg::IndexOp::create(nb, nloc, 0);
        scaled = arith::AddFOp::create(
            nb, nloc, scaled,
            tensor::ExtractOp::create(nb, nloc, table,
                                      ValueRange{bucket, head}));
      }
      if (!hidden)
        return scaled;
      Value negInf =
          f32Constant(nb, nloc, -std::numeric_limits<double>::infinity());
      return arith::SelectOp::create(nb, nloc, hidden, negInf, scaled);
    };

    // Row maxima over keys: loops (h, s, t).
    SmallVector<AffineMap> rowReduceMaps = {projection(context, 3, {0, 1, 2}),
                                            projection(context, 3, {0, 1})};
    Value maxInit = filledTensor(b, loc, {heads, queries},
                                 -std::numeric_limits<double>::infinity());
    Value maxima =
        linalg::GenericOp::create(
            b, loc, maxInit.getType(), scores, maxInit, rowReduceMaps,
            iterators(2, 1),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value score = maskedScore(nb, nloc, args[0]);
              yield(nb, nloc,
                    arith::MaximumFOp::create(nb, nloc, args[1], score));
            })
            .getResult(0);

    // Unnormalised probabilities exp(score - max); a hidden key's is
    // exp(-inf) = 0.
    SmallVector<AffineMap> expMaps = {projection(context, 3, {0, 1, 2}),
                                      projection(context, 3, {0, 1}),
                                      projection(context, 3, {0, 1, 2})};
    Value weights =
        linalg::GenericOp::create(
            b, loc, scores.getType(), ValueRange{scores, maxima},
            makeTensor(b, loc, {headsSize, queriesSize, keys}), expMaps,
            iterators(3),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value score = maskedScore(nb, nloc, args[0]);
              Value shifted = arith::SubFOp::create(nb, nloc, score, args[1]);
              yield(nb, nloc, math::ExpOp::create(nb, nloc, shifted));
            })
            .getResult(0);

    Value sumInit = filledTensor(b, loc, {heads, queries}, 0.0);
    Value sums = linalg::GenericOp::create(
                     b, loc, sumInit.getType(), weights, sumInit, rowReduceMaps,
                     iterators(2, 1),
                     [](OpBuilder &nb, Location nloc, ValueRange args) {
                       yield(nb, nloc,
                             arith::AddFOp::create(nb, nloc, args[1], args[0]));
                     })
                     .getResult(0);

    // unnormalised[s, h, d] = sum_t weights[h, s, t] * v[t, h / group, d];
    // loops (s, h, t, d): the key loop sits outside the feature loop so that
    // the innermost loop walks a value row contiguously (the other order
    // strides through the cache by kv_features per key).
    AffineExpr os = getAffineDimExpr(0, context),
               oh = getAffineDimExpr(1, context),
               ot = getAffineDimExpr(2, context),
               od = getAffineDimExpr(3, context);
    SmallVector<AffineMap> outMaps = {
        AffineMap::get(4, 0, {oh, os, ot}, context),
        keyValueMap(4, ot, oh.floorDiv(group), od),
        AffineMap::get(4, 0, {os, oh, od}, context)};
    Value outInit = filledTensor(b, loc, {queries, heads, headDim}, 0.0);
    Value unnormalised =
        linalg::GenericOp::create(
            b, loc, outInit.getType(), ValueRange{weights, v}, outInit, outMaps,
            SmallVector<utils::IteratorType>{
                utils::IteratorType::parallel, utils::IteratorType::parallel,
                utils::IteratorType::reduction, utils::IteratorType::parallel},
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              Value product = arith::MulFOp::create(nb, nloc, args[0],
                                                    widened(nb, nloc, args[1]));
              yield(nb, nloc,
                    arith::AddFOp::create(nb, nloc, args[2], product));
            })
            .getResult(0);

    // out = unnormalised / sums: one division per output, not per key.
    AffineExpr ns = getAffineDimExpr(0, context),
               nh = getAffineDimExpr(1, context),
               nd = getAffineDimExpr(2, context);
    SmallVector<AffineMap> normaliseMaps = {
        AffineMap::get(3, 0, {ns, nh, nd}, context),
        AffineMap::get(3, 0, {nh, ns}, context),
        AffineMap::get(3, 0, {ns, nh, nd}, context)};
    Value out = linalg::GenericOp::create(
                    b, loc, outInit.getType(), ValueRange{unnormalised, sums},
                    emptyTensor(b, loc, {queries, heads, headDim}),
                    normaliseMaps, iterators(3),
                    [](OpBuilder &nb, Location nloc, ValueRange args) {
                      yield(nb, nloc,
                            arith::DivFOp::create(nb, nloc, args[0], args[1]));
                    })
                    .getResult(0);

    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
    b.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, op.getType(), out,
                                                  groups);
    return success();
  }
};

struct TfmDecomposeAttention
    : mlir::tfm::impl::TfmDecomposeAttentionBase<TfmDecomposeAttention> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeAttention>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
