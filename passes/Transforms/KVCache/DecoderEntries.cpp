//===- DecoderEntries.cpp - Prefill and decode over a KV cache ------------===//
//
// A generating entry runs @forward over `sequence` tokens from position
// `pos`: every position offset (RoPE, learned positions, attention) becomes
// `pos`, and before each self-attention the step's keys and values are
// written into the layer's cache slots [pos, pos + sequence), or in a ring
// from slot pos mod R on, wrapping to slot 0 once, so that attention reads
// every position it may see from the cache. An encoder-decoder's
// cross-attention reads rows [0, length) of the keys and values its source
// encode stored.
//
//===----------------------------------------------------------------------===//
#include "passes/Transforms/KVCache/Entries.h"

#include "dialect/TfmContracts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

class GenerationEntryBuilder {
public:
  GenerationEntryBuilder(func::FuncOp forward, const CacheLayout &layout,
                         const EncoderDecoderSplit *split)
      : forward(forward), layout(layout), cache(layout.getContents()),
        split(split) {}

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
    arguments.push_back(layout.type(context));
    auto entry =
        func::FuncOp::create(moduleBuilder, forward.getLoc(), name,
                             FunctionType::get(context, arguments, {}));
    Block *block = entry.addEntryBlock();
    builder = OpBuilder::atBlockEnd(block);
    mapping.map(forward.getArgument(split ? 1 : 0), block->getArgument(0));
    position = block->getArgument(1);
    count = lastRowOnly ? block->getArgument(2) : Value();
    unsigned lengthIndex = lastRowOnly ? 3 : 2;
    sourceLength = split ? block->getArgument(lengthIndex) : Value();
    cacheValue = block->getArguments().back();

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
    // vocabulary projection is the largest GEMM of a small model). The
    // logits may be soft-capped on their way out (Gemma 2).
    auto head = dyn_cast<LMHeadOp>(op);
    auto returned = [](Operation *user) { return isa<func::ReturnOp>(user); };
    if (count && head && llvm::all_of(head->getUsers(), [&](Operation *user) {
          return returned(user) || (isa<SoftCapOp>(user) &&
                                    llvm::all_of(user->getUsers(), returned));
        })) {
      Value row = lastRow(head.getLoc(), mapping.lookup(head.getInput()));
      auto clone = LMHeadOp::create(
          builder, head.getLoc(), row, mapping.lookup(head.getWeight()),
          head.getBias() ? mapping.lookup(head.getBias()) : Value());
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
    return refineResultTypes(&op, clone);
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
    Value cachedKeys = layout.readLayer(builder, loc, cacheValue,
                                        CacheHalf::Keys, layer, visible);
    Value cachedValues = layout.readLayer(builder, loc, cacheValue,
                                          CacheHalf::Values, layer, visible);
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
    Value keys = layout.readLayer(builder, loc, cacheValue, CacheHalf::Keys,
                                  crossIndex, sourceLength);
    Value values = layout.readLayer(builder, loc, cacheValue, CacheHalf::Values,
                                    crossIndex, sourceLength);
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

  /// Writes the [sequence, kv_heads * head_dim] `rows` of positions [pos,
  /// pos + sequence) into this layer's half: slots [pos, pos + sequence),
  /// or in a ring from slot pos mod R on, wrapping to slot 0 once.
  Value writeRows(Location loc, Value rows, CacheHalf half) {
    int64_t sequence = cast<RankedTensorType>(rows.getType()).getDimSize(0);
    Value prepared = layout.prepareRows(builder, loc, rows);
    if (!cache.isRing(layer))
      return layout.insertRows(builder, loc, cacheValue, prepared, half, layer,
                               builder.getIndexAttr(0),
                               builder.getIndexAttr(sequence), position);
    Value slots =
        arith::ConstantIndexOp::create(builder, loc, cache.slots(layer));
    Value first = arith::RemUIOp::create(builder, loc, position, slots);
    if (sequence == 1)
      return layout.insertRows(builder, loc, cacheValue, prepared, half, layer,
                               builder.getIndexAttr(0), builder.getIndexAttr(1),
                               first);
    // Rows [0, n) go to slots [first, first + n), the rest to [0, ...).
    Value sequenceValue =
        arith::ConstantIndexOp::create(builder, loc, sequence);
    Value beforeWrap = arith::MinUIOp::create(
        builder, loc, sequenceValue,
        arith::SubIOp::create(builder, loc, slots, first));
    Value afterWrap =
        arith::SubIOp::create(builder, loc, sequenceValue, beforeWrap);
    Value wrapped =
        layout.insertRows(builder, loc, cacheValue, prepared, half, layer,
                          builder.getIndexAttr(0), beforeWrap, first);
    return layout.insertRows(builder, loc, wrapped, prepared, half, layer,
                             beforeWrap, afterWrap, builder.getIndexAttr(0));
  }

  func::FuncOp forward;
  const CacheLayout &layout;
  const CacheContents &cache;
  /// An encoder-decoder's split; null for a decoder-only model.
  const EncoderDecoderSplit *split;
  OpBuilder builder{forward.getContext()};
  IRMapping mapping;
  Value position;
  Value count; ///< real tokens of a prefill chunk; null for all rows
  Value cacheValue;
  int64_t layer = 0;
  Value sourceLength;     ///< real source rows (encoder-decoder)
  int64_t crossLayer = 0; ///< cross-attentions cloned so far
};

} // namespace

FailureOr<func::FuncOp> mlir::tfm::buildGenerationEntry(
    func::FuncOp forward, const CacheLayout &layout, StringRef name,
    int64_t sequence, bool lastRowOnly, const EncoderDecoderSplit *split) {
  return GenerationEntryBuilder(forward, layout, split)
      .build(name, sequence, lastRowOnly);
}
