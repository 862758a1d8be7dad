//===- Entries.h - The entry points tfm-kv-cache builds ---------*- C++ -*-===//
//
// Each builder clones @forward into one entry point: the decoder's (and an
// encoder-decoder target's) prefill and decode in DecoderEntries.cpp, an
// encoder's encode and an encoder-decoder's source encode in
// EncoderEntries.cpp. Cloning re-infers result types for the entry's
// sequence length (EntryCloning.cpp). None of them decides the model's kind:
// the pass reads it from #tfm.model and calls the builders that kind needs.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_TRANSFORMS_KVCACHE_ENTRIES_H
#define TFMC_PASSES_TRANSFORMS_KVCACHE_ENTRIES_H

#include "passes/Transforms/KVCache/CacheLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tfm {

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

/// Builds `name(tokens[sequence], pos, cache) -> (logits, cache)`, or with
/// `lastRowOnly`, `name(tokens[sequence], pos, count, cache) -> (logits[1],
/// cache)`: the logits of row `count - 1` (the last real token of a partly
/// filled chunk) only. With `split` (an encoder-decoder), @forward's second
/// argument is the tokens, only `split->targetOps` are cloned, and the entry
/// takes the source's `length` before the cache.
FailureOr<func::FuncOp> buildGenerationEntry(func::FuncOp forward,
                                             const CacheLayout &layout,
                                             StringRef name, int64_t sequence,
                                             bool lastRowOnly,
                                             const EncoderDecoderSplit *split);

/// Builds an encoder's `name(tokens[sequence], length) -> results of
/// @forward`: no cache, every row computed at once, each attention reading
/// the keys and values of rows [0, length) only.
FailureOr<func::FuncOp> buildEncoderEntry(func::FuncOp forward, StringRef name,
                                          int64_t sequence);

/// Builds an encoder-decoder's `name(source[sequence], length, cache) ->
/// cache`: the encoder over the source (its attention reading rows [0,
/// length) only), then every cross-attention's keys and values written into
/// their cache layers, rows [0, sequence).
FailureOr<func::FuncOp> buildSourceEncodeEntry(func::FuncOp forward,
                                               const CacheLayout &layout,
                                               const EncoderDecoderSplit &split,
                                               StringRef name,
                                               int64_t sequence);

//===----------------------------------------------------------------------===//
// Cloning (EntryCloning.cpp)
//===----------------------------------------------------------------------===//

/// Gives `clone`, a copy of `original` whose operands may have changed
/// shape, the result types its operands now imply. Fails with a diagnostic
/// on `original` when its operands changed and it can say nothing about its
/// results (no InferTypeOpInterface, no SameOperandsAndResultType).
LogicalResult refineResultTypes(Operation *original, Operation *clone);

/// A copy of `attention` (its query, ALiBi slopes and relative-bias table
/// mapped through `mapping`) that attends over `keys` and `values` with
/// the first query at `offset` and the cache ring `ring` (null: none); its
/// result replaces the original's in `mapping`.
void cloneAttentionOver(OpBuilder &builder, IRMapping &mapping,
                        AttentionOp attention, Value keys, Value values,
                        Value offset, IntegerAttr ring);

} // namespace mlir::tfm

#endif // TFMC_PASSES_TRANSFORMS_KVCACHE_ENTRIES_H
