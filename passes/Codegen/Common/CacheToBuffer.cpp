//===- CacheToBuffer.cpp - An entry's KV cache as a buffer, before bufferizing
////
//
// An entry's KV cache is one tensor that each layer updates (insert_slice of
// its new keys and values) and reads (extract_slice of its rows), so every
// layer's update and reads are links of one chain through the whole entry.
// One-shot bufferization checks each write into that chain against every
// read of it, and the cost grew faster than the square of the depth (the
// TinyLlama-1.1B shape: 1.2 s for 11 layers, 7.2 s for 22). The cache is the
// runtime's buffer anyway: this pass makes it one before the analysis, its
// writes `bufferization.materialize_in_destination` into a view, its reads
// `bufferization.to_tensor` of a view, so the analysis never sees the chain.
//
// That is what the chain means only when no read can see a later write:
// every slice read must be disjoint from every slice written after the value
// it reads (each layer's keys and values have their own rows). An entry
// whose chain is anything else (a link used by another op, a link in a
// nested region, slices that may overlap) keeps its tensor.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmContracts.h"
#include "passes/Codegen/Common/Passes.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCACHETOBUFFER
#include "passes/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// The cache's updates and reads in an entry: link 0 is the argument, link
/// k + 1 the result of `inserts[k]`, whose destination is link k.
struct CacheChain {
  SmallVector<tensor::InsertSliceOp> inserts;
  /// Each read with the link it reads.
  SmallVector<std::pair<tensor::ExtractSliceOp, unsigned>> extracts;
  /// The operand of the return that gives back the last link, if any.
  std::optional<unsigned> returned;
};

/// The chain that starts at `cache`, or nothing when it is not a plain one:
/// every link in the entry block, used by the next insert (as its
/// destination), by extracts, and (the last) by the return.
static std::optional<CacheChain> findChain(BlockArgument cache) {
  Block *block = cache.getOwner();
  CacheChain chain;
  Value link = cache;
  for (unsigned index = 0;; ++index) {
    tensor::InsertSliceOp next;
    for (OpOperand &use : link.getUses()) {
      Operation *user = use.getOwner();
      if (user->getBlock() != block)
        return std::nullopt;
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(user);
          insert && use.get() == insert.getDest() && !next &&
          insert.getSource() != link) {
        next = insert;
      } else if (auto extract = dyn_cast<tensor::ExtractSliceOp>(user)) {
        chain.extracts.push_back({extract, index});
      } else if (isa<func::ReturnOp>(user) && !chain.returned) {
        chain.returned = use.getOperandNumber();
      } else {
        return std::nullopt;
      }
    }
    if (!next)
      return chain;
    if (chain.returned)
      return std::nullopt;
    chain.inserts.push_back(next);
    link = next.getResult();
  }
}

/// Whether the slices [offsets, offsets + sizes) of `a` and `b`, of unit
/// strides, are provably disjoint: apart along some dimension whose
/// offsets and sizes are constants.
static bool provablyDisjoint(OffsetSizeAndStrideOpInterface a,
                             OffsetSizeAndStrideOpInterface b) {
  if (!a.hasUnitStride() || !b.hasUnitStride())
    return false;
  for (unsigned dim = 0, rank = a.getMixedOffsets().size(); dim < rank; ++dim) {
    std::optional<int64_t> offsetA =
        getConstantIntValue(a.getMixedOffsets()[dim]);
    std::optional<int64_t> offsetB =
        getConstantIntValue(b.getMixedOffsets()[dim]);
    std::optional<int64_t> sizeA = getConstantIntValue(a.getMixedSizes()[dim]);
    std::optional<int64_t> sizeB = getConstantIntValue(b.getMixedSizes()[dim]);
    if (offsetA && offsetB && sizeA && sizeB &&
        (*offsetA + *sizeA <= *offsetB || *offsetB + *sizeB <= *offsetA))
      return true;
  }
  return false;
}

/// Whether no read can see a write it must not: each extract of link k is
/// disjoint from the writes of links k and later.
static bool readsSeeOnlyEarlierWrites(const CacheChain &chain) {
  for (auto [extract, link] : chain.extracts)
    for (tensor::InsertSliceOp insert : llvm::drop_begin(chain.inserts, link))
      if (!provablyDisjoint(extract, insert))
        return false;
  return true;
}

/// A view of `buffer` that `slice` (an insert or extract of the cache)
/// addresses, with the shape of `sliceType` (rank-reduced as the slice is).
static Value createView(OpBuilder &builder, Value buffer,
                        OffsetSizeAndStrideOpInterface slice,
                        RankedTensorType sliceType) {
  auto bufferType = cast<MemRefType>(buffer.getType());
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      sliceType.getShape(), bufferType, slice.getMixedOffsets(),
      slice.getMixedSizes(), slice.getMixedStrides());
  return memref::SubViewOp::create(
      builder, slice->getLoc(), cast<MemRefType>(viewType), buffer,
      slice.getMixedOffsets(), slice.getMixedSizes(), slice.getMixedStrides());
}

/// Makes the cache argument `cache` of `function` a buffer and its chain
/// writes into and reads of views.
static void rewriteChain(func::FuncOp function, BlockArgument cache,
                         const CacheChain &chain) {
  auto tensorType = cast<RankedTensorType>(cache.getType());
  cache.setType(
      MemRefType::get(tensorType.getShape(), tensorType.getElementType()));
  OpBuilder builder(function.getContext());
  for (auto [extract, link] : chain.extracts) {
    builder.setInsertionPoint(extract);
    Value view = createView(builder, cache, extract, extract.getType());
    auto read = bufferization::ToTensorOp::create(builder, extract.getLoc(),
                                                  extract.getType(), view);
    read.setRestrict(true);
    extract.replaceAllUsesWith(read.getResult());
    extract.erase();
  }
  for (tensor::InsertSliceOp insert : chain.inserts) {
    builder.setInsertionPoint(insert);
    Value view = createView(builder, cache, insert, insert.getSourceType());
    auto write = bufferization::MaterializeInDestinationOp::create(
        builder, insert.getLoc(), insert.getSource(), view);
    write.setRestrict(true);
    write.setWritable(true);
  }
  // The last link is the only one still used outside the chain.
  if (chain.returned) {
    auto ret = cast<func::ReturnOp>(function.getBody().front().getTerminator());
    ret->eraseOperand(*chain.returned);
    (void)function.eraseResult(*chain.returned);
  }
  for (tensor::InsertSliceOp insert : llvm::reverse(chain.inserts))
    insert.erase();
  function.setType(FunctionType::get(function.getContext(),
                                     function.getBody().getArgumentTypes(),
                                     function.getResultTypes()));
}

struct TfmCacheToBuffer
    : mlir::tfm::impl::TfmCacheToBufferBase<TfmCacheToBuffer> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      std::optional<unsigned> index =
          tfm::findEntryArg(function, tfm::EntryArg::kv_cache);
      if (!index || function.isExternal() || !function.getBody().hasOneBlock())
        continue;
      BlockArgument cache = function.getArgument(*index);
      auto type = dyn_cast<RankedTensorType>(cache.getType());
      if (!type || !type.hasStaticShape())
        continue;
      std::optional<CacheChain> chain = findChain(cache);
      if (!chain || !readsSeeOnlyEarlierWrites(*chain))
        continue;
      rewriteChain(function, cache, *chain);
    }
  }
};

} // namespace
