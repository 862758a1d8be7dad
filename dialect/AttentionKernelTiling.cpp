//===- AttentionKernelTiling.cpp - tfm.attention_kernel's TilingInterface -===//
//
// The kernel's iteration space is (query row, head), both parallel. A tile
// of rows [r, r + R) and heads [h, h + H) reads query and output columns
// [h * D, (h + H) * D), the key/value heads those query heads share, all
// keys, and sits at positions offset + r onward. Heads are grouped
// (G = num_heads / num_kv_heads query heads per key/value head), so a head
// tile must either cover whole groups (G divides H: key/value heads
// [h / G, (h + H) / G)) or lie inside one (H divides G: key/value head
// h / G). Tile offsets are multiples of the tile size, which keeps both
// cases aligned.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// `value * factor` and `value floordiv divisor`, folded when constant.
OpFoldResult scaled(OpBuilder &b, Location loc, OpFoldResult value,
                    int64_t factor) {
  AffineExpr d0 = b.getAffineDimExpr(0);
  return affine::makeComposedFoldedAffineApply(b, loc, d0 * factor, {value});
}

OpFoldResult divided(OpBuilder &b, Location loc, OpFoldResult value,
                     int64_t divisor) {
  AffineExpr d0 = b.getAffineDimExpr(0);
  return affine::makeComposedFoldedAffineApply(b, loc, d0.floorDiv(divisor),
                                               {value});
}

Value slice(OpBuilder &b, Location loc, Value source,
            ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

/// The number of buckets (rows) of a relative bias table.
int64_t shapeOfTable(Value table) {
  return cast<RankedTensorType>(table.getType()).getDimSize(0);
}

} // namespace

SmallVector<utils::IteratorType> AttentionKernelOp::getLoopIteratorTypes() {
  return {utils::IteratorType::parallel, utils::IteratorType::parallel};
}

SmallVector<Range> AttentionKernelOp::getIterationDomain(OpBuilder &b) {
  Location loc = getLoc();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  return {Range{zero, tensor::getMixedSize(b, loc, getQuery(), 0), one},
          Range{zero, b.getIndexAttr(getNumHeads()), one}};
}

FailureOr<TilingResult>
AttentionKernelOp::getTiledImplementation(OpBuilder &b,
                                          ArrayRef<OpFoldResult> offsets,
                                          ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  std::optional<int64_t> heads = getConstantIntValue(sizes[1]);
  if (!heads)
    return emitOpError("head tiles need a static size");
  int64_t group = getNumHeads() / getNumKvHeads();
  int64_t kvHeads;
  if (*heads % group == 0)
    kvHeads = *heads / group;
  else if (group % *heads == 0)
    kvHeads = 1;
  else
    return emitOpError() << "a tile of " << *heads
                         << " heads splits a group of " << group
                         << " heads sharing a key/value head";

  int64_t headDim = getHeadDim();
  OpFoldResult row = offsets[0], rows = sizes[0];
  OpFoldResult column = scaled(b, loc, offsets[1], headDim);
  OpFoldResult columns = b.getIndexAttr(*heads * headDim);
  OpFoldResult kvHead = divided(b, loc, offsets[1], group);
  OpFoldResult keys = tensor::getMixedSize(b, loc, getKey(), getKeysDim());

  SmallVector<Value> slices;
  slices.push_back(slice(b, loc, getQuery(), {row, column}, {rows, columns}));
  for (Value keysOrValues : {getKey(), getValue()}) {
    if (isHeadMajor())
      slices.push_back(slice(
          b, loc, keysOrValues, {kvHead, b.getIndexAttr(0), b.getIndexAttr(0)},
          {b.getIndexAttr(kvHeads), keys, b.getIndexAttr(headDim)}));
    else
      slices.push_back(
          slice(b, loc, keysOrValues,
                {b.getIndexAttr(0), scaled(b, loc, kvHead, headDim)},
                {keys, b.getIndexAttr(kvHeads * headDim)}));
  }
  slices.push_back(slice(b, loc, getInit(), {row, column}, {rows, columns}));
  Value slopes, relativeBias;
  if (getSlopes()) {
    slopes = slice(b, loc, getSlopes(), {offsets[1]}, {sizes[1]});
    slices.push_back(slopes);
  }
  if (Value table = getRelativeBias()) {
    // The tile's heads' columns of the [buckets, heads] table.
    relativeBias = slice(b, loc, table, {b.getIndexAttr(0), offsets[1]},
                         {b.getIndexAttr(shapeOfTable(table)), sizes[1]});
    slices.push_back(relativeBias);
  }
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
  Value offset =
      getValueOrCreateConstantIndexOp(b, loc,
                                      affine::makeComposedFoldedAffineApply(
                                          b, loc, d0 + d1, {getOffset(), row}));

  auto tile = AttentionKernelOp::create(
      b, loc, slices[3].getType(), slices[0], slices[1], slices[2], offset,
      slopes, relativeBias, slices[3], b.getI64IntegerAttr(*heads),
      b.getI64IntegerAttr(kvHeads), getMaskAttr(), getWindowAttr(),
      getRingAttr(), getMaxDistanceAttr(), getScaleAttr(), getSoftcapAttr());
  SmallVector<Operation *> generated;
  for (Value value : slices)
    generated.push_back(value.getDefiningOp());
  return TilingResult{{tile}, {tile.getResult()}, generated};
}

LogicalResult AttentionKernelOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  std::optional<int64_t> heads = getConstantIntValue(sizes[1]);
  if (!heads)
    return failure();
  int64_t headDim = getHeadDim();
  resultOffsets = {offsets[0], scaled(b, getLoc(), offsets[1], headDim)};
  resultSizes = {sizes[0], b.getIndexAttr(*heads * headDim)};
  return success();
}
