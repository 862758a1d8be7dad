//===- EncoderEntries.cpp - encode: a whole sequence at once --------------===//
//
// An encoder's `encode` runs @forward over the whole (padded) sequence with
// no cache; rows from `length` on are padding, and each attention reads
// keys and values of rows [0, length) only, so no real row sees them (their
// own results are meaningless). An encoder-decoder's `encode` runs the
// encoder side of @forward(source, target) the same way, once per prompt,
// and stores every cross-attention's keys and values in the cache, where
// the target's entries read them.
//
//===----------------------------------------------------------------------===//
#include "passes/Transforms/KVCache/Entries.h"

#include "dialect/TfmContracts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Rows [0, length) of the [sequence, kv_heads * head_dim] `rows`, as
/// [kv_heads, length, head_dim] (head-major, as tfm.attention reads keys
/// it is given whole: the attention kernels read one head's keys
/// contiguously).
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

/// A copy of `attention` over the real rows [0, length) of its keys and
/// values.
void cloneOverRealRows(OpBuilder &builder, IRMapping &mapping,
                       AttentionOp attention, Value length) {
  Location loc = attention.getLoc();
  int64_t kvHeads = attention.getNumKvHeads();
  int64_t headDim = attention.getHeadDim();
  Value keys = headMajorPrefix(builder, loc, mapping.lookup(attention.getKey()),
                               kvHeads, headDim, length);
  Value values =
      headMajorPrefix(builder, loc, mapping.lookup(attention.getValue()),
                      kvHeads, headDim, length);
  cloneAttentionOver(builder, mapping, attention, keys, values,
                     mapping.lookup(attention.getOffset()),
                     attention.getRingAttr());
}

} // namespace

FailureOr<func::FuncOp> mlir::tfm::buildEncoderEntry(func::FuncOp forward,
                                                     StringRef name,
                                                     int64_t sequence) {
  MLIRContext *context = forward.getContext();
  OpBuilder moduleBuilder(forward);
  Type tokensType =
      RankedTensorType::get({sequence}, IntegerType::get(context, 32));
  auto entry = func::FuncOp::create(
      moduleBuilder, forward.getLoc(), name,
      FunctionType::get(context, {tokensType, IndexType::get(context)}, {}));
  Block *block = entry.addEntryBlock();
  OpBuilder builder = OpBuilder::atBlockEnd(block);
  IRMapping mapping;
  mapping.map(forward.getArgument(0), block->getArgument(0));
  Value length = block->getArgument(1);
  for (Operation &op : forward.getBody().front()) {
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      cloneOverRealRows(builder, mapping, attention, length);
      continue;
    }
    if (failed(refineResultTypes(&op, builder.clone(op, mapping)))) {
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

FailureOr<func::FuncOp> mlir::tfm::buildSourceEncodeEntry(
    func::FuncOp forward, const CacheLayout &layout,
    const EncoderDecoderSplit &split, StringRef name, int64_t sequence) {
  MLIRContext *context = forward.getContext();
  OpBuilder moduleBuilder(forward);
  Type tokensType =
      RankedTensorType::get({sequence}, IntegerType::get(context, 32));
  Type indexType = IndexType::get(context);
  auto entry = func::FuncOp::create(
      moduleBuilder, forward.getLoc(), name,
      FunctionType::get(context, {tokensType, indexType, layout.type(context)},
                        {}));
  Block *block = entry.addEntryBlock();
  OpBuilder builder = OpBuilder::atBlockEnd(block);
  IRMapping mapping;
  mapping.map(forward.getArgument(0), block->getArgument(0));
  Value length = block->getArgument(1);
  Value cache = block->getArgument(2);
  // The source's keys and values fill slots [0, sequence) of their layers.
  Value position = arith::ConstantIndexOp::create(builder, forward.getLoc(), 0);
  for (Operation &op : forward.getBody().front()) {
    if (!split.sourceOps.contains(&op))
      continue;
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      cloneOverRealRows(builder, mapping, attention, length);
      continue;
    }
    if (failed(refineResultTypes(&op, builder.clone(op, mapping)))) {
      entry.erase();
      return failure();
    }
  }
  for (auto [index, stored] : llvm::enumerate(split.crossAttentions)) {
    AttentionOp cross = stored;
    int64_t layer = split.selfLayers + int64_t(index);
    Location loc = cross.getLoc();
    for (auto [half, rows] :
         {std::pair{CacheHalf::Keys, mapping.lookup(cross.getKey())},
          std::pair{CacheHalf::Values, mapping.lookup(cross.getValue())}}) {
      int64_t rowCount = cast<RankedTensorType>(rows.getType()).getDimSize(0);
      Value prepared = layout.prepareRows(builder, loc, rows);
      cache = layout.insertRows(builder, loc, cache, prepared, half, layer,
                                builder.getIndexAttr(0),
                                builder.getIndexAttr(rowCount), position);
    }
  }
  func::ReturnOp::create(builder, forward.getLoc(), ValueRange{cache});
  entry.setType(
      FunctionType::get(context, entry.getArgumentTypes(), {cache.getType()}));
  auto function = cast<FunctionOpInterface>(entry.getOperation());
  setEntryArg(function, 0, EntryArg::tokens);
  setEntryArg(function, 1, EntryArg::length);
  setEntryArg(function, 2, EntryArg::kv_cache);
  return entry;
}
