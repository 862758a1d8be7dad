//===- HeadMajorLayout.cpp - The CPU kernels' KV cache layout -------------===//
//
// Head-major: each head's keys (and values) of a layer are contiguous, so
// that attending one head streams through memory instead of striding over
// the other heads' features. When every layer holds as many slots, the
// cache is one [keys/values, layers, kv heads, slots, head_dim] tensor.
// Layers of different slot counts (Qwen2: full attention below
// max_window_layers, a ring above) keep the [kv heads * slots] rows of each
// layer's keys, then of each layer's values, in one [rows, head_dim] tensor,
// each layer's keys or values a [kv heads, slots, head_dim] view of its
// rows. An f16 cache rounds each step's rows to nearest even as they are
// written.
//
//===----------------------------------------------------------------------===//
#include "passes/Transforms/KVCache/CacheLayout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

class HeadMajorLayout : public CacheLayout {
public:
  using CacheLayout::CacheLayout;

  RankedTensorType type(MLIRContext *context) const override {
    if (contents.isUniform())
      return RankedTensorType::get({2, contents.layers(), contents.kvHeads,
                                    contents.layerSlots.front(),
                                    contents.headDim},
                                   contents.element(context));
    return RankedTensorType::get(
        {2 * firstRow(contents.layers()), contents.headDim},
        contents.element(context));
  }

  /// [sequence, kv_heads * head_dim] -> [kv_heads, sequence, head_dim],
  /// rounded to f16 for an f16 cache.
  Value prepareRows(OpBuilder &builder, Location loc,
                    Value rows) const override {
    int64_t sequence = cast<RankedTensorType>(rows.getType()).getDimSize(0);
    Type f32 = Float32Type::get(builder.getContext());
    auto splitType = RankedTensorType::get(
        {sequence, contents.kvHeads, contents.headDim}, f32);
    Value split = tensor::ExpandShapeOp::create(
        builder, loc, splitType, rows,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    Value headMajor = tensor::EmptyOp::create(
        builder, loc,
        ArrayRef<int64_t>{contents.kvHeads, sequence, contents.headDim}, f32);
    headMajor = linalg::TransposeOp::create(builder, loc, split, headMajor,
                                            ArrayRef<int64_t>{1, 0, 2})
                    .getResult()[0];
    if (contents.elementType == KVCacheType::f16)
      headMajor = roundToHalf(builder, loc, headMajor);
    return headMajor;
  }

  Value insertRows(OpBuilder &builder, Location loc, Value cache,
                   Value headMajor, CacheHalf half, int64_t layer,
                   OpFoldResult begin, OpFoldResult count,
                   OpFoldResult slot) const override {
    Value rows = headMajor;
    auto type = cast<RankedTensorType>(headMajor.getType());
    std::optional<int64_t> staticCount = getConstantIntValue(count);
    if (!staticCount || *staticCount != type.getDimSize(1)) {
      SmallVector<OpFoldResult> offsets = {builder.getIndexAttr(0), begin,
                                           builder.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes = {
          builder.getIndexAttr(contents.kvHeads), count,
          builder.getIndexAttr(contents.headDim)};
      SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
      rows = tensor::ExtractSliceOp::create(builder, loc, headMajor, offsets,
                                            sizes, strides);
    }
    if (!contents.isUniform()) {
      // Each head's slots are contiguous rows of the cache: one
      // insertion per head.
      Value cacheRows = cache;
      Type element = contents.element(builder.getContext());
      for (int64_t head = 0; head < contents.kvHeads; ++head) {
        auto headType = RankedTensorType::get(
            {getConstantIntValue(count).value_or(ShapedType::kDynamic),
             contents.headDim},
            element);
        Value headRows = tensor::ExtractSliceOp::create(
            builder, loc, headType, rows,
            ArrayRef<OpFoldResult>{builder.getIndexAttr(head),
                                   builder.getIndexAttr(0),
                                   builder.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{builder.getIndexAttr(1), count,
                                   builder.getIndexAttr(contents.headDim)},
            ArrayRef<OpFoldResult>(
                SmallVector<OpFoldResult>(3, builder.getIndexAttr(1))));
        int64_t headStart =
            firstRowOf(half, layer) + head * contents.slots(layer);
        OpFoldResult row = offsetBy(builder, loc, slot, headStart);
        cacheRows = tensor::InsertSliceOp::create(
            builder, loc, headRows, cacheRows,
            ArrayRef<OpFoldResult>{row, builder.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{count,
                                   builder.getIndexAttr(contents.headDim)},
            ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                                   builder.getIndexAttr(1)});
      }
      return cacheRows;
    }
    SmallVector<OpFoldResult> offsets = {
        builder.getIndexAttr(static_cast<int64_t>(half)),
        builder.getIndexAttr(layer), builder.getIndexAttr(0), slot,
        builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {
        builder.getIndexAttr(1), builder.getIndexAttr(1),
        builder.getIndexAttr(contents.kvHeads), count,
        builder.getIndexAttr(contents.headDim)};
    SmallVector<OpFoldResult> strides(5, builder.getIndexAttr(1));
    return tensor::InsertSliceOp::create(builder, loc, rows, cache, offsets,
                                         sizes, strides);
  }

  /// [kv_heads, visible, head_dim]: the head-major form tfm.attention
  /// reads cached keys in.
  Value readLayer(OpBuilder &builder, Location loc, Value cache, CacheHalf half,
                  int64_t layer, Value visible) const override {
    auto type = RankedTensorType::get(
        {contents.kvHeads, ShapedType::kDynamic, contents.headDim},
        contents.element(builder.getContext()));
    if (!contents.isUniform()) {
      SmallVector<OpFoldResult> offsets(3, builder.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = {
          builder.getIndexAttr(contents.kvHeads), visible,
          builder.getIndexAttr(contents.headDim)};
      SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
      return tensor::ExtractSliceOp::create(
          builder, loc, type, layerView(builder, loc, cache, half, layer),
          offsets, sizes, strides);
    }
    SmallVector<OpFoldResult> offsets = {
        builder.getIndexAttr(static_cast<int64_t>(half)),
        builder.getIndexAttr(layer), builder.getIndexAttr(0),
        builder.getIndexAttr(0), builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {
        builder.getIndexAttr(1), builder.getIndexAttr(1),
        builder.getIndexAttr(contents.kvHeads), visible,
        builder.getIndexAttr(contents.headDim)};
    SmallVector<OpFoldResult> strides(5, builder.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(builder, loc, type, cache, offsets,
                                          sizes, strides);
  }

private:
  /// The first row of layer `layer`'s keys in a non-uniform cache (its
  /// values start `firstRow(layers())` rows later).
  int64_t firstRow(int64_t layer) const {
    int64_t rows = 0;
    for (int64_t slotCount :
         ArrayRef<int64_t>(contents.layerSlots).take_front(layer))
      rows += contents.kvHeads * slotCount;
    return rows;
  }

  /// The first row of layer `index`'s keys or values in a non-uniform
  /// cache.
  int64_t firstRowOf(CacheHalf half, int64_t index) const {
    int64_t halfRows = firstRow(contents.layers());
    return static_cast<int64_t>(half) * halfRows + firstRow(index);
  }

  /// Layer `index`'s keys or values in a non-uniform cache, its rows seen
  /// as [kv_heads, slots, head_dim].
  Value layerView(OpBuilder &builder, Location loc, Value cache, CacheHalf half,
                  int64_t index) const {
    int64_t slots = contents.slots(index);
    Type element = contents.element(builder.getContext());
    auto rowsType = RankedTensorType::get(
        {contents.kvHeads * slots, contents.headDim}, element);
    Value rows = tensor::ExtractSliceOp::create(
        builder, loc, rowsType, cache,
        ArrayRef<OpFoldResult>{builder.getIndexAttr(firstRowOf(half, index)),
                               builder.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(rowsType.getDimSize(0)),
                               builder.getIndexAttr(contents.headDim)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                               builder.getIndexAttr(1)});
    return tensor::ExpandShapeOp::create(
        builder, loc,
        RankedTensorType::get({contents.kvHeads, slots, contents.headDim},
                              element),
        rows, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }

  /// `index + offset`, folded when `index` is a constant.
  static OpFoldResult offsetBy(OpBuilder &builder, Location loc,
                               OpFoldResult index, int64_t offset) {
    if (std::optional<int64_t> constant = getConstantIntValue(index))
      return builder.getIndexAttr(*constant + offset);
    if (offset == 0)
      return index;
    return arith::AddIOp::create(
               builder, loc, cast<Value>(index),
               arith::ConstantIndexOp::create(builder, loc, offset))
        .getResult();
  }

  /// `rows` rounded to f16 (nearest even), as an f16 cache stores them.
  static Value roundToHalf(OpBuilder &builder, Location loc, Value rows) {
    auto type = cast<RankedTensorType>(rows.getType());
    Type f16 = Float16Type::get(builder.getContext());
    Value init = tensor::EmptyOp::create(builder, loc, type.getShape(), f16);
    AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               builder, loc, init.getType(), rows, init,
               ArrayRef<AffineMap>{identity, identity}, parallel,
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 linalg::YieldOp::create(nb, nloc,
                                         ValueRange{arith::TruncFOp::create(
                                             nb, nloc, f16, args[0])});
               })
        .getResult(0);
  }
};

} // namespace

std::unique_ptr<CacheLayout>
mlir::tfm::createHeadMajorLayout(const CacheContents &contents) {
  return std::make_unique<HeadMajorLayout>(contents);
}
