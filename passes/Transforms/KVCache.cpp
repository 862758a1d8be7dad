//===- KVCache.cpp - Split the network into KV-cached prefill/decode ------===//
//
// The frontends build the whole network over a sequence that starts at
// position 0 (`@forward`). Generation needs two shapes of it that share state:
// a chunked prefill and a one-token decode, both reading keys and values of
// earlier positions from a cache. This pass clones @forward once per entry,
// threads the position and the cache through, and re-infers every result type
// for the entry's sequence length.
//
// An encoder's @forward (every attention bidirectional, cache role none)
// gets one `encode` entry instead: the whole sequence at once, no cache, and
// a `length` argument that keeps padding rows out of every attention.
//
// An encoder-decoder's @forward(source, target) (T5) gets three entries:
// `encode(source[context], length, cache)` runs the encoder once per prompt
// and stores every cross-attention's keys and values in the cache, after
// the decoder's self-attention layers; `prefill` and `decode` (with the
// source's `length` as well) run the decoder over the target, whose
// cross-attention reads rows [0, length) of those stored keys and values.
//
// Sliding-window attention keeps a rolling cache: position p lives in slot
// p mod R with R = window + prefill_chunk - 1, so that writing a chunk never
// overwrites a position that one of its own queries still sees, and the
// cache's memory is bounded by the window however long generation runs.
// When every layer has as many slots, the cache is one
// [keys/values, layers, kv heads, slots, head_dim] tensor. Layers of
// different windows (Qwen2: full attention below max_window_layers,
// windowed above) each keep their own slots, a ring for a windowed layer
// and the whole context for a full one: the cache is then the rows of
// those layers one after the other, [rows, head_dim], and each layer's
// keys or values are a [kv heads, slots, head_dim] view of its rows.
//
// With cache-type=f16 the cache stores keys and values in half precision:
// each step's rows are rounded to nearest even as they are written, and
// attention widens them back to f32 as it reads them. Half the bytes per
// position: long-context decode reads the cache about as much as the
// weights, and an f16 cache halves that traffic.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmContracts.h"
#include "dialect/TfmOps.h"
#include "passes/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMKVCACHE
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// What the entries need to know about @forward's attention layers.
struct CacheShape {
  int64_t kvHeads = 0;
  int64_t headDim = 0;
  int64_t context = 0;
  /// Positions each layer's cache holds: `context`, or less for a ring.
  SmallVector<int64_t> layerSlots;
  /// Keys and values are stored in f16 rather than f32.
  bool half = false;

  int64_t layers() const { return layerSlots.size(); }
  int64_t slots(int64_t layer) const { return layerSlots[layer]; }
  bool isRing(int64_t layer) const { return slots(layer) < context; }

  /// Every layer holds as many positions.
  bool isUniform() const { return llvm::all_equal(layerSlots); }

  /// Uniform: [keys/values, layers, kv heads, slots, head_dim], head-major
  /// so that one head's keys are contiguous. Otherwise the
  /// [kv heads * slots] rows of each layer's keys, then of each layer's
  /// values: [rows, head_dim].
  RankedTensorType type(MLIRContext *context_) const {
    if (isUniform())
      return RankedTensorType::get(
          {2, layers(), kvHeads, layerSlots.front(), headDim},
          elementType(context_));
    return RankedTensorType::get({2 * firstRow(layers()), headDim},
                                 elementType(context_));
  }

  /// The first row of layer `layer`'s keys in a non-uniform cache (its
  /// values start `firstRow(layers())` rows later).
  int64_t firstRow(int64_t layer) const {
    int64_t rows = 0;
    for (int64_t slotCount : ArrayRef<int64_t>(layerSlots).take_front(layer))
      rows += kvHeads * slotCount;
    return rows;
  }

  /// Appends `attention`'s layer holding `slots` positions; fails, with a
  /// diagnostic, when its key/value heads differ from the earlier layers'.
  LogicalResult addLayer(AttentionOp attention, int64_t slots) {
    int64_t layerKvHeads = attention.getNumKvHeads();
    int64_t layerHeadDim = attention.getHeadDim();
    if (layers() > 0 && (layerKvHeads != kvHeads || layerHeadDim != headDim))
      return attention.emitOpError("has ")
             << layerKvHeads << " key/value heads of " << layerHeadDim
             << " features but an earlier layer has " << kvHeads << " of "
             << headDim << "; one KV cache needs equal layers";
    kvHeads = layerKvHeads;
    headDim = layerHeadDim;
    layerSlots.push_back(slots);
    return success();
  }

  Type elementType(MLIRContext *context_) const {
    if (half)
      return Float16Type::get(context_);
    return Float32Type::get(context_);
  }
};

/// A copy of `attention` (its query, ALiBi slopes and relative-bias table
/// mapped through `mapping`) that attends over `keys` and `values` with
/// the first query at `offset` and the cache ring `ring` (null: none); its
/// result replaces the original's in `mapping`.
void cloneAttentionOver(OpBuilder &builder, IRMapping &mapping,
                        AttentionOp attention, Value keys, Value values,
                        Value offset, IntegerAttr ring) {
  auto clone = AttentionOp::create(
      builder, attention.getLoc(), mapping.lookup(attention.getQuery()), keys,
      values, offset, mapping.lookupOrNull(attention.getSlopes()),
      mapping.lookupOrNull(attention.getRelativeBias()),
      attention.getNumHeadsAttr(), attention.getNumKvHeadsAttr(),
      attention.getMaskAttr(), attention.getWindowAttr(),
      attention.getCacheAttr(), ring, attention.getMaxDistanceAttr(),
      attention.getScaleAttr());
  mapping.map(attention.getResult(), clone.getResult());
}

/// Recomputes the result types of a cloned op whose operands changed shape.
LogicalResult refineResultTypes(Operation *op) {
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      return failure();
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
    return success();
  }
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    for (OpResult result : op->getResults())
      result.setType(op->getOperand(0).getType());
    return success();
  }
  return success();
}

/// Rows [0, length) of the [sequence, kv_heads * head_dim] `rows`, as
/// [kv_heads, length, head_dim] (head-major, as the cached entries' keys:
/// the attention kernels read one head's keys contiguously).
Value headMajorPrefix(OpBuilder &builder, Location loc, Value rows,
                      int64_t kvHeads, int64_t headDim, Value length) {
  int64_t sequence = cast<RankedTensorType>(rows.getType()).getDimSize(0);
  Type f32 = Float32Type::get(builder.getContext());
  auto splitType = RankedTensorType::get({sequence, kvHeads, headDim}, f32);
  Value split = tensor::ExpandShapeOp::create(
      builder, loc, splitType, rows,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value headMajor = tensor::EmptyOp::create(
      builder, loc, ArrayRef<int64_t>{kvHeads, sequence, headDim}, f32);
  headMajor = linalg::TransposeOp::create(builder, loc, split, headMajor,
                                          ArrayRef<int64_t>{1, 0, 2})
                  .getResult()[0];
  SmallVector<OpFoldResult> offsets(3, builder.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(kvHeads), length,
                                     builder.getIndexAttr(headDim)};
  SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
  auto type =
      RankedTensorType::get({kvHeads, ShapedType::kDynamic, headDim}, f32);
  return tensor::ExtractSliceOp::create(builder, loc, type, headMajor, offsets,
                                        sizes, strides);
}

/// How an encoder-decoder's @forward(source, target) divides between its
/// entries.
struct EncoderDecoderSplit {
  /// The cross-attentions, in order; the i-th stores its keys and values
  /// in cache layer `selfLayers + i`.
  SmallVector<AttentionOp> crossAttentions;
  int64_t selfLayers = 0;
  /// What `encode` computes: the cross-attentions' keys and values.
  llvm::DenseSet<Operation *> sourceOps;
  /// What prefill and decode compute: the logits, with the
  /// cross-attentions' keys and values read from the cache.
  llvm::DenseSet<Operation *> targetOps;
};

/// Index of the cache half holding keys (0) or values (1).
enum class CacheHalf : int64_t { Keys = 0, Values = 1 };

class EntryBuilder {
public:
  EntryBuilder(func::FuncOp forward, const CacheShape &cache)
      : forward(forward), cache(cache) {}

  /// Builds the target's entries of an encoder-decoder: @forward's second
  /// argument is the tokens, only `split.targetOps` are cloned, and the
  /// entries take the source's `length` before the cache.
  void setEncoderDecoder(const EncoderDecoderSplit &encoderDecoder) {
    split = &encoderDecoder;
  }

  /// Builds an encoder-decoder's `name(source[sequence], length, cache) ->
  /// cache`: the encoder over the source (its attention reading rows [0,
  /// length) only), then every cross-attention's keys and values written
  /// into their cache layers, rows [0, sequence).
  FailureOr<func::FuncOp> buildSourceEncode(StringRef name, int64_t sequence) {
    MLIRContext *context = forward.getContext();
    OpBuilder moduleBuilder(forward);
    Type tokensType =
        RankedTensorType::get({sequence}, IntegerType::get(context, 32));
    Type indexType = IndexType::get(context);
    auto entry = func::FuncOp::create(
        moduleBuilder, forward.getLoc(), name,
        FunctionType::get(context, {tokensType, indexType, cache.type(context)},
                          {}));
    Block *block = entry.addEntryBlock();
    builder = OpBuilder::atBlockEnd(block);
    mapping.clear();
    mapping.map(forward.getArgument(0), block->getArgument(0));
    Value length = block->getArgument(1);
    cacheValue = block->getArgument(2);
    count = Value();
    position = arith::ConstantIndexOp::create(builder, forward.getLoc(), 0);
    for (Operation &op : forward.getBody().front()) {
      if (!split->sourceOps.contains(&op))
        continue;
      auto attention = dyn_cast<AttentionOp>(op);
      if (!attention) {
        if (failed(refineResultTypes(builder.clone(op, mapping)))) {
          entry.erase();
          return failure();
        }
        continue;
      }
      Location loc = attention.getLoc();
      int64_t kvHeads = attention.getNumKvHeads();
      int64_t headDim = attention.getHeadDim();
      Value keys =
          headMajorPrefix(builder, loc, mapping.lookup(attention.getKey()),
                          kvHeads, headDim, length);
      Value values =
          headMajorPrefix(builder, loc, mapping.lookup(attention.getValue()),
                          kvHeads, headDim, length);
      cloneAttentionOver(builder, mapping, attention, keys, values,
                         mapping.lookup(attention.getOffset()),
                         attention.getRingAttr());
    }
    for (auto [index, stored] : llvm::enumerate(split->crossAttentions)) {
      AttentionOp cross = stored;
      layer = split->selfLayers + int64_t(index);
      Location loc = cross.getLoc();
      cacheValue =
          writeRows(loc, mapping.lookup(cross.getKey()), CacheHalf::Keys);
      cacheValue =
          writeRows(loc, mapping.lookup(cross.getValue()), CacheHalf::Values);
    }
    func::ReturnOp::create(builder, forward.getLoc(), ValueRange{cacheValue});
    entry.setType(FunctionType::get(context, entry.getArgumentTypes(),
                                    {cacheValue.getType()}));
    auto function = cast<FunctionOpInterface>(entry.getOperation());
    setEntryArg(function, 0, EntryArg::tokens);
    setEntryArg(function, 1, EntryArg::length);
    setEntryArg(function, 2, EntryArg::kv_cache);
    return entry;
  }

  /// Builds `name(tokens[sequence], pos, cache) -> (logits, cache)`, or
  /// with `lastRowOnly`, `name(tokens[sequence], pos, count, cache) ->
  /// (logits[1], cache)`: the logits of row `count - 1` (the last real
  /// token of a partly filled chunk) only.
  FailureOr<func::FuncOp> build(StringRef name, int64_t sequence,
                                bool lastRowOnly) {
    MLIRContext *context = forward.getContext();
    OpBuilder moduleBuilder(forward);
    Type tokensType =
        RankedTensorType::get({sequence}, IntegerType::get(context, 32));
    Type indexType = IndexType::get(context);
    SmallVector<Type> arguments = {tokensType, indexType};
    if (lastRowOnly)
      arguments.push_back(indexType);
    if (split)
      arguments.push_back(indexType);
    arguments.push_back(cache.type(context));
    auto entry =
        func::FuncOp::create(moduleBuilder, forward.getLoc(), name,
                             FunctionType::get(context, arguments, {}));
    Block *block = entry.addEntryBlock();
    builder = OpBuilder::atBlockEnd(block);
    mapping.clear();
    mapping.map(forward.getArgument(split ? 1 : 0), block->getArgument(0));
    position = block->getArgument(1);
    count = lastRowOnly ? block->getArgument(2) : Value();
    unsigned lengthIndex = lastRowOnly ? 3 : 2;
    sourceLength = split ? block->getArgument(lengthIndex) : Value();
    cacheValue = block->getArguments().back();
    layer = 0;
    crossLayer = 0;

    for (Operation &op : forward.getBody().front()) {
      if (split && !split->targetOps.contains(&op))
        continue;
      if (failed(cloneOp(op))) {
        entry.erase();
        return failure();
      }
    }
    auto terminator = cast<func::ReturnOp>(block->getTerminator());
    entry.setType(FunctionType::get(context, entry.getArgumentTypes(),
                                    terminator.getOperandTypes()));
    // Later passes find the arguments by these marks (tfm-skip-unread-logits
    // guards what only the logits need with count != 0).
    auto function = cast<FunctionOpInterface>(entry.getOperation());
    setEntryArg(function, 0, EntryArg::tokens);
    setEntryArg(function, 1, EntryArg::position);
    if (lastRowOnly)
      setEntryArg(function, 2, EntryArg::count);
    if (split)
      setEntryArg(function, lengthIndex, EntryArg::length);
    setEntryArg(function, entry.getNumArguments() - 1, EntryArg::kv_cache);
    return entry;
  }

private:
  LogicalResult cloneOp(Operation &op) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      Value result = mapping.lookup(ret.getOperand(0));
      if (count && cast<RankedTensorType>(result.getType()).getDimSize(0) != 1)
        result = lastRow(ret.getLoc(), result);
      func::ReturnOp::create(builder, ret.getLoc(),
                             ValueRange{result, cacheValue});
      return success();
    }
    if (auto attention = dyn_cast<AttentionOp>(op))
      return cloneAttention(attention);
    // Only one row of logits is returned: project only that row (the
    // vocabulary projection is the largest GEMM of a small model).
    auto head = dyn_cast<LMHeadOp>(op);
    if (count && head && llvm::all_of(head->getUsers(), [](Operation *user) {
          return isa<func::ReturnOp>(user);
        })) {
      Value row = lastRow(head.getLoc(), mapping.lookup(head.getInput()));
      auto clone = LMHeadOp::create(builder, head.getLoc(), row,
                                    mapping.lookup(head.getWeight()));
      mapping.map(head.getResult(), clone.getResult());
      return success();
    }

    Operation *clone = builder.clone(op, mapping);
    if (auto rope = dyn_cast<RopeOp>(clone))
      rope.getOffsetMutable().assign(position);
    if (auto positions = dyn_cast<PositionEmbeddingOp>(clone))
      positions.getOffsetMutable().assign(position);
    if (auto sinusoids = dyn_cast<SinusoidalPositionOp>(clone))
      sinusoids.getOffsetMutable().assign(position);
    return refineResultTypes(clone);
  }

  /// Writes this step's keys/values into the cache, then attends over the
  /// layer's whole cache slice.
  LogicalResult cloneAttention(AttentionOp attention) {
    if (attention.getCache() == CacheRole::cross)
      return cloneCrossAttention(attention);
    Location loc = attention.getLoc();
    Value keys = mapping.lookup(attention.getKey());
    Value values = mapping.lookup(attention.getValue());
    cacheValue = writeRows(loc, keys, CacheHalf::Keys);
    cacheValue = writeRows(loc, values, CacheHalf::Values);
    int64_t sequence = cast<RankedTensorType>(keys.getType()).getDimSize(0);
    Value visible = arith::AddIOp::create(
        builder, loc, position,
        arith::ConstantIndexOp::create(builder, loc, sequence));
    // A ring's slots fill up once; after that every slot holds a key.
    if (cache.isRing(layer))
      visible = arith::MinUIOp::create(
          builder, loc, visible,
          arith::ConstantIndexOp::create(builder, loc, cache.slots(layer)));
    Value cachedKeys = readLayer(loc, CacheHalf::Keys, visible);
    Value cachedValues = readLayer(loc, CacheHalf::Values, visible);
    IntegerAttr ring = cache.isRing(layer)
                           ? builder.getI64IntegerAttr(cache.slots(layer))
                           : IntegerAttr();
    cloneAttentionOver(builder, mapping, attention, cachedKeys, cachedValues,
                       position, ring);
    ++layer;
    return success();
  }

  /// Attends over the keys and values that `encode` stored for this
  /// cross-attention: rows [0, length) of its cache layer.
  LogicalResult cloneCrossAttention(AttentionOp attention) {
    Location loc = attention.getLoc();
    int64_t crossIndex = split->selfLayers + crossLayer++;
    Value keys = readLayer(loc, CacheHalf::Keys, sourceLength, crossIndex);
    Value values = readLayer(loc, CacheHalf::Values, sourceLength, crossIndex);
    cloneAttentionOver(builder, mapping, attention, keys, values, position,
                       /*ring=*/IntegerAttr());
    return success();
  }

  /// Row `count - 1` of the [rows, features] `value`.
  Value lastRow(Location loc, Value value) {
    int64_t features = cast<RankedTensorType>(value.getType()).getDimSize(1);
    Value row = arith::SubIOp::create(
        builder, loc, count, arith::ConstantIndexOp::create(builder, loc, 1));
    SmallVector<OpFoldResult> offsets = {row, builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(1),
                                       builder.getIndexAttr(features)};
    SmallVector<OpFoldResult> strides(2, builder.getIndexAttr(1));
    auto type = RankedTensorType::get(
        {1, features},
        cast<RankedTensorType>(value.getType()).getElementType());
    return tensor::ExtractSliceOp::create(builder, loc, type, value, offsets,
                                          sizes, strides);
  }

  /// Writes the [sequence, kv_heads * head_dim] `rows` into positions
  /// [pos, pos + sequence) of every head of this layer's half: slots
  /// [pos, pos + sequence), or in a ring from slot pos mod R on, wrapping
  /// to slot 0 once.
  Value writeRows(Location loc, Value rows, CacheHalf half) {
    int64_t sequence = cast<RankedTensorType>(rows.getType()).getDimSize(0);
    Type f32 = Float32Type::get(builder.getContext());
    auto splitType =
        RankedTensorType::get({sequence, cache.kvHeads, cache.headDim}, f32);
    Value split = tensor::ExpandShapeOp::create(
        builder, loc, splitType, rows,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    Value headMajor = tensor::EmptyOp::create(
        builder, loc, ArrayRef<int64_t>{cache.kvHeads, sequence, cache.headDim},
        f32);
    headMajor = linalg::TransposeOp::create(builder, loc, split, headMajor,
                                            ArrayRef<int64_t>{1, 0, 2})
                    .getResult()[0];
    if (cache.half)
      headMajor = roundToHalf(loc, headMajor);
    if (!cache.isRing(layer))
      return insertRows(loc, headMajor, half, builder.getIndexAttr(0),
                        builder.getIndexAttr(sequence), position);
    Value slots =
        arith::ConstantIndexOp::create(builder, loc, cache.slots(layer));
    Value first = arith::RemUIOp::create(builder, loc, position, slots);
    if (sequence == 1)
      return insertRows(loc, headMajor, half, builder.getIndexAttr(0),
                        builder.getIndexAttr(1), first);
    // Rows [0, n) go to slots [first, first + n), the rest to [0, ...).
    Value sequenceValue =
        arith::ConstantIndexOp::create(builder, loc, sequence);
    Value beforeWrap = arith::MinUIOp::create(
        builder, loc, sequenceValue,
        arith::SubIOp::create(builder, loc, slots, first));
    Value afterWrap =
        arith::SubIOp::create(builder, loc, sequenceValue, beforeWrap);
    cacheValue = insertRows(loc, headMajor, half, builder.getIndexAttr(0),
                            beforeWrap, first);
    return insertRows(loc, headMajor, half, beforeWrap, afterWrap,
                      builder.getIndexAttr(0));
  }

  /// `rows` rounded to f16 (nearest even), as an f16 cache stores them.
  Value roundToHalf(Location loc, Value rows) {
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

  /// Inserts rows [begin, begin + count) of the [kv_heads, sequence,
  /// head_dim] `headMajor` at slot `slot` of this layer's half.
  Value insertRows(Location loc, Value headMajor, CacheHalf half,
                   OpFoldResult begin, OpFoldResult count, OpFoldResult slot) {
    Value rows = headMajor;
    auto type = cast<RankedTensorType>(headMajor.getType());
    std::optional<int64_t> staticCount = getConstantIntValue(count);
    if (!staticCount || *staticCount != type.getDimSize(1)) {
      SmallVector<OpFoldResult> offsets = {builder.getIndexAttr(0), begin,
                                           builder.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(cache.kvHeads),
                                         count,
                                         builder.getIndexAttr(cache.headDim)};
      SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
      rows = tensor::ExtractSliceOp::create(builder, loc, headMajor, offsets,
                                            sizes, strides);
    }
    if (!cache.isUniform()) {
      // Each head's slots are contiguous rows of the cache: one
      // insertion per head.
      Value cacheRows = cacheValue;
      Type element = cache.elementType(builder.getContext());
      for (int64_t head = 0; head < cache.kvHeads; ++head) {
        auto headType = RankedTensorType::get(
            {getConstantIntValue(count).value_or(ShapedType::kDynamic),
             cache.headDim},
            element);
        Value headRows = tensor::ExtractSliceOp::create(
            builder, loc, headType, rows,
            ArrayRef<OpFoldResult>{builder.getIndexAttr(head),
                                   builder.getIndexAttr(0),
                                   builder.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{builder.getIndexAttr(1), count,
                                   builder.getIndexAttr(cache.headDim)},
            ArrayRef<OpFoldResult>(
                SmallVector<OpFoldResult>(3, builder.getIndexAttr(1))));
        int64_t headStart = firstRowOf(half, layer) + head * cache.slots(layer);
        OpFoldResult row = offsetBy(loc, slot, headStart);
        cacheRows = tensor::InsertSliceOp::create(
            builder, loc, headRows, cacheRows,
            ArrayRef<OpFoldResult>{row, builder.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{count, builder.getIndexAttr(cache.headDim)},
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
        builder.getIndexAttr(cache.kvHeads), count,
        builder.getIndexAttr(cache.headDim)};
    SmallVector<OpFoldResult> strides(5, builder.getIndexAttr(1));
    return tensor::InsertSliceOp::create(builder, loc, rows, cacheValue,
                                         offsets, sizes, strides);
  }

  /// `index + offset`, folded when `index` is a constant.
  OpFoldResult offsetBy(Location loc, OpFoldResult index, int64_t offset) {
    if (std::optional<int64_t> constant = getConstantIntValue(index))
      return builder.getIndexAttr(*constant + offset);
    if (offset == 0)
      return index;
    return arith::AddIOp::create(
               builder, loc, cast<Value>(index),
               arith::ConstantIndexOp::create(builder, loc, offset))
        .getResult();
  }

  /// The first row of layer `index`'s keys or values in a non-uniform
  /// cache.
  int64_t firstRowOf(CacheHalf half, int64_t index) const {
    int64_t halfRows = cache.firstRow(cache.layers());
    return static_cast<int64_t>(half) * halfRows + cache.firstRow(index);
  }

  /// Layer `index`'s keys or values in a non-uniform cache, its rows seen
  /// as [kv_heads, slots, head_dim].
  Value layerView(Location loc, CacheHalf half, int64_t index) {
    int64_t slots = cache.slots(index);
    Type element = cache.elementType(builder.getContext());
    auto rowsType =
        RankedTensorType::get({cache.kvHeads * slots, cache.headDim}, element);
    Value rows = tensor::ExtractSliceOp::create(
        builder, loc, rowsType, cacheValue,
        ArrayRef<OpFoldResult>{builder.getIndexAttr(firstRowOf(half, index)),
                               builder.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(rowsType.getDimSize(0)),
                               builder.getIndexAttr(cache.headDim)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                               builder.getIndexAttr(1)});
    return tensor::ExpandShapeOp::create(
        builder, loc,
        RankedTensorType::get({cache.kvHeads, slots, cache.headDim}, element),
        rows, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }

  /// Slots [0, visible) of every head of the layer's keys or values,
  /// [kv_heads, visible, head_dim]: everything this step may attend to
  /// (positions [0, pos + sequence), or the ring's written slots), so
  /// attention never visits unwritten rows.
  Value readLayer(Location loc, CacheHalf half, Value visible) {
    return readLayer(loc, half, visible, layer);
  }

  /// Slots [0, visible) of cache layer `index`.
  Value readLayer(Location loc, CacheHalf half, Value visible, int64_t index) {
    auto type = RankedTensorType::get(
        {cache.kvHeads, ShapedType::kDynamic, cache.headDim},
        cache.elementType(builder.getContext()));
    if (!cache.isUniform()) {
      SmallVector<OpFoldResult> offsets(3, builder.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(cache.kvHeads),
                                         visible,
                                         builder.getIndexAttr(cache.headDim)};
      SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
      return tensor::ExtractSliceOp::create(builder, loc, type,
                                            layerView(loc, half, index),
                                            offsets, sizes, strides);
    }
    SmallVector<OpFoldResult> offsets = {
        builder.getIndexAttr(static_cast<int64_t>(half)),
        builder.getIndexAttr(index), builder.getIndexAttr(0),
        builder.getIndexAttr(0), builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {
        builder.getIndexAttr(1), builder.getIndexAttr(1),
        builder.getIndexAttr(cache.kvHeads), visible,
        builder.getIndexAttr(cache.headDim)};
    SmallVector<OpFoldResult> strides(5, builder.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(builder, loc, type, cacheValue,
                                          offsets, sizes, strides);
  }

  func::FuncOp forward;
  CacheShape cache;
  OpBuilder builder{forward.getContext()};
  IRMapping mapping;
  Value position;
  Value count; ///< real tokens of a prefill chunk; null for all rows
  Value cacheValue;
  int64_t layer = 0;
  /// An encoder-decoder's split; null for a decoder-only model.
  const EncoderDecoderSplit *split = nullptr;
  Value sourceLength;     ///< real source rows (encoder-decoder)
  int64_t crossLayer = 0; ///< cross-attentions cloned so far
};

/// Builds an encoder's `encode(tokens[sequence], length) -> results of
/// @forward`: no cache, every row computed at once. Rows from `length` on
/// are padding: each attention reads keys and values of rows [0, length)
/// only, so no real row sees them (their own results are meaningless).
class EncodeBuilder {
public:
  explicit EncodeBuilder(func::FuncOp forward) : forward(forward) {}

  FailureOr<func::FuncOp> build(StringRef name, int64_t sequence) {
    MLIRContext *context = forward.getContext();
    OpBuilder moduleBuilder(forward);
    Type tokensType =
        RankedTensorType::get({sequence}, IntegerType::get(context, 32));
    auto entry = func::FuncOp::create(
        moduleBuilder, forward.getLoc(), name,
        FunctionType::get(context, {tokensType, IndexType::get(context)}, {}));
    Block *block = entry.addEntryBlock();
    builder = OpBuilder::atBlockEnd(block);
    mapping.map(forward.getArgument(0), block->getArgument(0));
    length = block->getArgument(1);
    for (Operation &op : forward.getBody().front()) {
      if (auto attention = dyn_cast<AttentionOp>(op)) {
        cloneAttention(attention);
        continue;
      }
      if (failed(refineResultTypes(builder.clone(op, mapping)))) {
        entry.erase();
        return failure();
      }
    }
    auto terminator = cast<func::ReturnOp>(block->getTerminator());
    entry.setType(FunctionType::get(context, entry.getArgumentTypes(),
                                    terminator.getOperandTypes()));
    auto function = cast<FunctionOpInterface>(entry.getOperation());
    setEntryArg(function, 0, EntryArg::tokens);
    setEntryArg(function, 1, EntryArg::length);
    return entry;
  }

private:
  void cloneAttention(AttentionOp attention) {
    Location loc = attention.getLoc();
    int64_t kvHeads = attention.getNumKvHeads();
    int64_t headDim = attention.getHeadDim();
    Value keys =
        realRows(loc, mapping.lookup(attention.getKey()), kvHeads, headDim);
    Value values =
        realRows(loc, mapping.lookup(attention.getValue()), kvHeads, headDim);
    cloneAttentionOver(builder, mapping, attention, keys, values,
                       mapping.lookup(attention.getOffset()),
                       attention.getRingAttr());
  }

  /// Rows [0, length) of the [sequence, kv_heads * head_dim] `rows`, as
  /// [kv_heads, length, head_dim] (head-major, as the cached entries'
  /// keys: the attention kernels read one head's keys contiguously).
  Value realRows(Location loc, Value rows, int64_t kvHeads, int64_t headDim) {
    return headMajorPrefix(builder, loc, rows, kvHeads, headDim, length);
  }

  func::FuncOp forward;
  OpBuilder builder{forward.getContext()};
  IRMapping mapping;
  Value length;
};

/// Divides an encoder-decoder's @forward(source, target) between its
/// entries (see EncoderDecoderSplit), checking that the source reaches the
/// target only through cross-attentions' keys and values.
FailureOr<EncoderDecoderSplit> splitEncoderDecoder(func::FuncOp forward) {
  EncoderDecoderSplit split;
  Block &body = forward.getBody().front();
  for (auto attention : body.getOps<AttentionOp>()) {
    CacheRole role = attention.getCache();
    MaskKind mask = attention.getMask();
    MaskKind expected =
        role == CacheRole::self ? MaskKind::causal : MaskKind::bidirectional;
    if (mask != expected || attention.getWindow()) {
      attention.emitOpError()
          << "has cache role " << stringifyCacheRole(role) << " and a "
          << stringifyMaskKind(mask)
          << " mask; in an encoder-decoder, tfm-kv-cache caches causal "
             "self-attention and bidirectional cross-attention, and encodes "
             "with bidirectional attention (no window)";
      return failure();
    }
    if (role == CacheRole::self)
      ++split.selfLayers;
    if (role == CacheRole::cross)
      split.crossAttentions.push_back(attention);
  }
  if (split.crossAttentions.empty()) {
    forward.emitError("@forward takes source and target tokens but has no "
                      "cross-attention (cache role cross)");
    return failure();
  }
  // The backward slice of `roots`, not through cross-attentions' keys and
  // values unless `throughCross`; reaching `forbidden` is an error.
  auto collect = [&](SmallVector<Value> worklist,
                     llvm::DenseSet<Operation *> &ops, bool throughCross,
                     Value forbidden, StringRef what) -> LogicalResult {
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (value == forbidden)
        return forward.emitError(what);
      Operation *producer = value.getDefiningOp();
      if (!producer || !ops.insert(producer).second)
        continue;
      auto attention = dyn_cast<AttentionOp>(producer);
      if (!throughCross && attention &&
          attention.getCache() == CacheRole::cross) {
        worklist.push_back(attention.getQuery());
        worklist.push_back(attention.getOffset());
        continue;
      }
      llvm::append_range(worklist, producer->getOperands());
    }
    return success();
  };
  Operation *terminator = body.getTerminator();
  split.targetOps.insert(terminator);
  if (failed(collect(SmallVector<Value>(terminator->getOperands()),
                     split.targetOps, /*throughCross=*/false,
                     forward.getArgument(0),
                     "@forward's target side reads the source tokens other "
                     "than through cross-attention keys and values")))
    return failure();
  SmallVector<Value> crossInputs;
  for (AttentionOp cross : split.crossAttentions) {
    crossInputs.push_back(cross.getKey());
    crossInputs.push_back(cross.getValue());
  }
  if (failed(collect(crossInputs, split.sourceOps, /*throughCross=*/true,
                     forward.getArgument(1),
                     "a cross-attention's keys or values depend on the "
                     "target tokens")))
    return failure();
  return split;
}

/// True when @forward is an encoder's: every attention bidirectional with
/// nothing to cache. An encoder gets `encode`, a decoder prefill/decode.
FailureOr<bool> isEncoder(func::FuncOp forward) {
  int64_t uncached = 0, total = 0;
  WalkResult walk = forward.walk([&](AttentionOp attention) {
    ++total;
    if (attention.getCache() != CacheRole::none)
      return WalkResult::advance();
    ++uncached;
    if (attention.getMask() != MaskKind::bidirectional) {
      attention.emitOpError()
          << "has cache role none but a "
          << stringifyMaskKind(attention.getMask())
          << " mask; tfm-kv-cache builds an encoder's entry from "
             "bidirectional attention only";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (uncached > 0 && uncached != total) {
    forward.emitError("mixes attention with no cache (an encoder's) and "
                      "cached attention (a decoder's); tfm-kv-cache builds "
                      "one kind of entry points");
    return failure();
  }
  return total > 0 && uncached == total;
}

/// What this pass caches: causal self-attention, with or without a sliding
/// window. It refuses the other kinds, which need other entry points.
LogicalResult checkCacheable(AttentionOp attention) {
  CacheRole role = attention.getCache();
  if (role != CacheRole::self)
    return attention.emitOpError()
           << "has cache role " << stringifyCacheRole(role)
           << "; tfm-kv-cache caches self-attention only (cross-attention "
              "needs an encoder-decoder's entry points)";
  MaskKind mask = attention.getMask();
  if (mask != MaskKind::causal && mask != MaskKind::sliding_window)
    return attention.emitOpError()
           << "has a " << stringifyMaskKind(mask)
           << " mask; tfm-kv-cache caches causal attention (with or without "
              "a sliding window) only";
  return success();
}

struct TfmKVCache : mlir::tfm::impl::TfmKVCacheBase<TfmKVCache> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> forward = findForward(module);
    if (failed(forward))
      return signalPassFailure();
    int64_t positions =
        contextLength > 0 ? contextLength : getModel(module).getContextLength();
    if (forward->getNumArguments() == 2)
      return buildEncoderDecoderEntries(module, *forward, positions);
    FailureOr<bool> encoder = isEncoder(*forward);
    if (failed(encoder))
      return signalPassFailure();
    if (*encoder)
      return buildEncoderEntry(module, *forward, positions);
    if (forward->getFunctionType().getNumResults() != 1) {
      forward->emitError("@forward must map tensor<Sxi32> tokens to one "
                         "logits tensor in a single block (an encoder: to "
                         "its results)");
      return signalPassFailure();
    }
    if (cacheType != "f32" && cacheType != "f16") {
      module.emitError("tfm-kv-cache: cache-type must be f32 or f16, not '")
          << cacheType << "'";
      return signalPassFailure();
    }
    int64_t chunk = std::min<int64_t>(prefillChunk, positions);
    FailureOr<CacheShape> cache = analyzeCache(*forward, positions, chunk);
    if (failed(cache))
      return signalPassFailure();
    cache->half = cacheType == "f16";

    EntryBuilder builder(*forward, *cache);
    FailureOr<func::FuncOp> prefill =
        builder.build("prefill", chunk, /*lastRowOnly=*/true);
    FailureOr<func::FuncOp> decode =
        builder.build("decode", 1, /*lastRowOnly=*/false);
    if (failed(prefill) || failed(decode))
      return signalPassFailure();
    forward->erase();
    MLIRContext *context = &getContext();
    ModelAttr model = getModel(module);
    setModel(module, ModelAttr::get(context, model.getContextLength(),
                                    /*network=*/nullptr));
    setEntries(module,
               EntriesAttr::get(context, SymbolRefAttr::get(*prefill),
                                SymbolRefAttr::get(*decode),
                                /*encode=*/nullptr, chunk, cache->context));
  }

  /// An encoder-decoder gets `encode` for its source (`positions` tokens)
  /// and prefill/decode for its target; the cache holds the decoder's
  /// self-attention layers, then one layer per cross-attention.
  void buildEncoderDecoderEntries(ModuleOp module, func::FuncOp forward,
                                  int64_t positions) {
    if (cacheType != "f32" && cacheType != "f16") {
      module.emitError("tfm-kv-cache: cache-type must be f32 or f16, not '")
          << cacheType << "'";
      return signalPassFailure();
    }
    FailureOr<EncoderDecoderSplit> split = splitEncoderDecoder(forward);
    if (failed(split))
      return signalPassFailure();
    CacheShape cache;
    cache.context = positions;
    cache.half = cacheType == "f16";
    for (auto attention : forward.getBody().front().getOps<AttentionOp>()) {
      if (attention.getCache() == CacheRole::none)
        continue;
      if (failed(cache.addLayer(attention, positions)))
        return signalPassFailure();
    }
    int64_t chunk = std::min<int64_t>(prefillChunk, positions);
    EntryBuilder builder(forward, cache);
    builder.setEncoderDecoder(*split);
    FailureOr<func::FuncOp> encode =
        builder.buildSourceEncode("encode", positions);
    FailureOr<func::FuncOp> prefill =
        builder.build("prefill", chunk, /*lastRowOnly=*/true);
    FailureOr<func::FuncOp> decode =
        builder.build("decode", 1, /*lastRowOnly=*/false);
    if (failed(encode) || failed(prefill) || failed(decode))
      return signalPassFailure();
    forward.erase();
    MLIRContext *context = &getContext();
    ModelAttr model = getModel(module);
    setModel(module, ModelAttr::get(context, model.getContextLength(),
                                    /*network=*/nullptr));
    setEntries(module,
               EntriesAttr::get(context, SymbolRefAttr::get(*prefill),
                                SymbolRefAttr::get(*decode),
                                SymbolRefAttr::get(*encode), chunk, positions));
  }

  /// An encoder runs its whole (padded) sequence of `positions` tokens in
  /// one `encode` call.
  void buildEncoderEntry(ModuleOp module, func::FuncOp forward,
                         int64_t positions) {
    EncodeBuilder builder(forward);
    FailureOr<func::FuncOp> encode = builder.build("encode", positions);
    if (failed(encode))
      return signalPassFailure();
    forward.erase();
    MLIRContext *context = &getContext();
    ModelAttr model = getModel(module);
    setModel(module, ModelAttr::get(context, model.getContextLength(),
                                    /*network=*/nullptr));
    setEntries(module,
               EntriesAttr::get(context, /*prefill=*/nullptr,
                                /*decode=*/nullptr, SymbolRefAttr::get(*encode),
                                /*prefill_chunk=*/0, positions));
  }

  FailureOr<func::FuncOp> findForward(ModuleOp module) {
    ModelAttr model = getModel(module);
    auto forward = model && model.getNetwork()
                       ? module.lookupSymbol<func::FuncOp>(model.getNetwork())
                       : func::FuncOp();
    if (!forward) {
      module.emitError("tfm-kv-cache needs the network function: the "
                       "module's #tfm.model names none");
      return failure();
    }
    FunctionType type = forward.getFunctionType();
    // One tokens argument, or an encoder-decoder's source and target.
    bool oneOrTwo =
        type.getNumInputs() == 1 ||
        (type.getNumInputs() == 2 && type.getInput(0) == type.getInput(1));
    auto tokens = oneOrTwo ? dyn_cast<RankedTensorType>(type.getInput(0))
                           : RankedTensorType();
    if (!tokens || tokens.getRank() != 1 ||
        !tokens.getElementType().isInteger(32) || type.getNumResults() == 0 ||
        !forward.getBody().hasOneBlock()) {
      forward.emitError("@forward must map tensor<Sxi32> tokens to one logits "
                        "tensor in a single block (an encoder: to its "
                        "results)");
      return failure();
    }
    return forward;
  }

  FailureOr<CacheShape> analyzeCache(func::FuncOp forward, int64_t context,
                                     int64_t chunk) {
    CacheShape cache;
    cache.context = context;
    WalkResult walk = forward.walk([&](AttentionOp attention) {
      if (failed(checkCacheable(attention)))
        return WalkResult::interrupt();
      if (attention.isHeadMajor()) {
        attention.emitOpError("reads head-major keys already; tfm-kv-cache "
                              "expects @forward's [keys, features] form");
        return WalkResult::interrupt();
      }
      // A window's ring; no ring where window and chunk cover the context.
      int64_t window = attention.getWindow().value_or(0);
      int64_t slots =
          window > 0 ? std::min(context, window + chunk - 1) : context;
      if (failed(cache.addLayer(attention, slots)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (cache.layers() == 0) {
      forward.emitError("@forward has no tfm.attention: nothing to cache");
      return failure();
    }
    return cache;
  }
};

} // namespace
