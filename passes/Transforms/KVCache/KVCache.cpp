//===- KVCache.cpp - Split the network into KV-cached prefill/decode ------===//
//
// The frontends build the whole network over a sequence that starts at
// position 0 (`@forward`) and record in #tfm.model what kind of network it
// is. Generation needs other shapes of it that share state; this pass
// reads the kind, checks that @forward fits it, and clones @forward once
// per entry point that kind has:
//
// - a decoder: a chunked `prefill` and a one-token `decode`, both reading
//   keys and values of earlier positions from a cache (DecoderEntries.cpp);
// - an encoder (every attention bidirectional, cache role none): one
//   `encode` entry, the whole sequence at once, no cache, and a `length`
//   argument that keeps padding rows out of every attention
//   (EncoderEntries.cpp), and copies of it over fewer rows (encode
//   buckets) that a short prompt runs instead;
// - an encoder-decoder, @forward(source, target) (T5): `encode(source,
//   length, cache)` runs the encoder once per prompt and stores every
//   cross-attention's keys and values in the cache, after the decoder's
//   self-attention layers; `prefill` and `decode` (with the source's
//   `length` as well) run the decoder over the target, whose
//   cross-attention reads rows [0, length) of those stored keys and values.
//
// Sliding-window attention keeps a rolling cache: position p lives in slot
// p mod R with R = window + prefill_chunk - 1, so that writing a chunk never
// overwrites a position that one of its own queries still sees, and the
// cache's memory is bounded by the window however long generation runs.
// What the cache holds (CacheContents) follows from @forward; how one
// tensor holds it is the cache layout's (CacheLayout.h), head-major here.
//
// With kv-cache=f16 the cache stores keys and values in half precision:
// each step's rows are rounded to nearest even as they are written, and
// attention widens them back to f32 as it reads them. Half the bytes per
// position: long-context decode reads the cache about as much as the
// weights, and an f16 cache halves that traffic.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmContracts.h"
#include "passes/Transforms/KVCache/Entries.h"
#include "passes/Transforms/Passes.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMKVCACHE
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// How many token arguments @forward takes for `kind`.
unsigned tokenArguments(ModelKind kind) {
  return kind == ModelKind::encoder_decoder ? 2 : 1;
}

/// What a decoder caches: causal self-attention, with or without a sliding
/// window.
LogicalResult checkDecoderAttention(AttentionOp attention) {
  CacheRole role = attention.getCache();
  if (role != CacheRole::self)
    return attention.emitOpError()
           << "has cache role " << stringifyCacheRole(role)
           << ", but the model is a decoder (#tfm.model's kind), whose "
              "attention tfm-kv-cache caches as self-attention (cross-"
              "attention belongs to an encoder_decoder, none to an encoder)";
  MaskKind mask = attention.getMask();
  if (mask != MaskKind::causal && mask != MaskKind::sliding_window)
    return attention.emitOpError()
           << "has a " << stringifyMaskKind(mask)
           << " mask; tfm-kv-cache caches causal attention (with or without "
              "a sliding window) only";
  return success();
}

/// What an encoder runs: bidirectional attention with nothing to cache.
LogicalResult checkEncoderAttention(AttentionOp attention) {
  CacheRole role = attention.getCache();
  if (role != CacheRole::none)
    return attention.emitOpError()
           << "has cache role " << stringifyCacheRole(role)
           << ", but the model is an encoder (#tfm.model's kind), which "
              "caches nothing (cache role none)";
  if (attention.getMask() != MaskKind::bidirectional)
    return attention.emitOpError()
           << "has cache role none but a "
           << stringifyMaskKind(attention.getMask())
           << " mask; tfm-kv-cache builds an encoder's entry from "
              "bidirectional attention only";
  return success();
}

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

struct TfmKVCache : mlir::tfm::impl::TfmKVCacheBase<TfmKVCache> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> forward = findForward(module);
    if (failed(forward))
      return signalPassFailure();
    ModelAttr model = getModel(module);
    int64_t positions =
        contextLength > 0 ? contextLength : model.getContextLength();
    switch (model.getKind()) {
    case ModelKind::decoder:
      return buildDecoderEntries(module, *forward, positions);
    case ModelKind::encoder:
      return buildEncoderEntries(module, *forward, positions);
    case ModelKind::encoder_decoder:
      return buildEncoderDecoderEntries(module, *forward, positions);
    }
  }

  /// A decoder gets prefill (`chunk` tokens) and decode (one token) over a
  /// cache of `positions` per layer (fewer in a sliding window's ring).
  void buildDecoderEntries(ModuleOp module, func::FuncOp forward,
                           int64_t positions) {
    if (forward.getFunctionType().getNumResults() != 1) {
      forward.emitError("@forward must map tensor<Sxi32> tokens to one "
                        "logits tensor in a single block (an encoder: to "
                        "its results)");
      return signalPassFailure();
    }
    int64_t chunk = std::min<int64_t>(prefillChunk, positions);
    FailureOr<CacheContents> contents =
        analyzeDecoderCache(forward, positions, chunk);
    if (failed(contents))
      return signalPassFailure();
    std::unique_ptr<CacheLayout> layout = createHeadMajorLayout(*contents);
    // One entry's failure is reported once: the next is not attempted.
    FailureOr<func::FuncOp> prefill =
        buildGenerationEntry(forward, *layout, "prefill", chunk,
                             /*lastRowOnly=*/true, /*split=*/nullptr);
    if (failed(prefill))
      return signalPassFailure();
    FailureOr<func::FuncOp> decode =
        buildGenerationEntry(forward, *layout, "decode", 1,
                             /*lastRowOnly=*/false, /*split=*/nullptr);
    if (failed(decode))
      return signalPassFailure();
    replaceNetwork(module, forward,
                   EntriesAttr::get(&getContext(), SymbolRefAttr::get(*prefill),
                                    SymbolRefAttr::get(*decode),
                                    /*encode=*/nullptr, chunk, positions,
                                    /*encode_buckets=*/nullptr));
  }

  /// An encoder-decoder gets `encode` for its source (`positions` tokens)
  /// and prefill/decode for its target; the cache holds the decoder's
  /// self-attention layers, then one layer per cross-attention.
  void buildEncoderDecoderEntries(ModuleOp module, func::FuncOp forward,
                                  int64_t positions) {
    FailureOr<EncoderDecoderSplit> split = splitEncoderDecoder(forward);
    if (failed(split))
      return signalPassFailure();
    CacheContents contents;
    contents.context = positions;
    contents.elementType = kvCache;
    for (auto attention : forward.getBody().front().getOps<AttentionOp>()) {
      if (attention.getCache() == CacheRole::none)
        continue;
      if (failed(contents.addLayer(attention, positions)))
        return signalPassFailure();
    }
    int64_t chunk = std::min<int64_t>(prefillChunk, positions);
    std::unique_ptr<CacheLayout> layout = createHeadMajorLayout(contents);
    FailureOr<func::FuncOp> encode =
        buildSourceEncodeEntry(forward, *layout, *split, "encode", positions);
    if (failed(encode))
      return signalPassFailure();
    FailureOr<ArrayAttr> buckets =
        buildEncodeBuckets(positions, [&](StringRef name, int64_t rows) {
          return buildSourceEncodeEntry(forward, *layout, *split, name, rows);
        });
    if (failed(buckets))
      return signalPassFailure();
    FailureOr<func::FuncOp> prefill = buildGenerationEntry(
        forward, *layout, "prefill", chunk, /*lastRowOnly=*/true, &*split);
    if (failed(prefill))
      return signalPassFailure();
    FailureOr<func::FuncOp> decode = buildGenerationEntry(
        forward, *layout, "decode", 1, /*lastRowOnly=*/false, &*split);
    if (failed(decode))
      return signalPassFailure();
    replaceNetwork(module, forward,
                   EntriesAttr::get(&getContext(), SymbolRefAttr::get(*prefill),
                                    SymbolRefAttr::get(*decode),
                                    SymbolRefAttr::get(*encode), chunk,
                                    positions, *buckets));
  }

  /// Builds `encode` over fewer rows with `build(name, rows)` for each
  /// bucket encode-min-rows asks for below `positions` (none: a null list).
  FailureOr<ArrayAttr> buildEncodeBuckets(
      int64_t positions,
      function_ref<FailureOr<func::FuncOp>(StringRef, int64_t)> build) {
    int64_t minRows = encodeMinRows;
    if (minRows < 0) {
      getOperation().emitError("tfm-kv-cache: encode-min-rows must be >= 0, "
                               "got ")
          << minRows;
      return failure();
    }
    SmallVector<Attribute> buckets;
    // Four times the rows per bucket: a call computes at most four times
    // its rows, with one entry per factor of four of the context.
    for (int64_t rows = minRows; rows > 0 && rows < positions; rows *= 4) {
      FailureOr<func::FuncOp> entry =
          build(("encode_" + Twine(rows)).str(), rows);
      if (failed(entry))
        return failure();
      buckets.push_back(EncodeBucketAttr::get(&getContext(), rows,
                                              SymbolRefAttr::get(*entry)));
    }
    return buckets.empty() ? ArrayAttr()
                           : ArrayAttr::get(&getContext(), buckets);
  }

  /// An encoder runs its whole (padded) sequence of `positions` tokens in
  /// one `encode` call.
  void buildEncoderEntries(ModuleOp module, func::FuncOp forward,
                           int64_t positions) {
    if (kvCache != KVCacheType::f32) {
      module.emitError("tfm-kv-cache: kv-cache=")
          << kvCacheTypeName(kvCache)
          << " asks for a KV cache, but an encoder (#tfm.model's kind) has "
             "none";
      return signalPassFailure();
    }
    WalkResult walk = forward.walk([&](AttentionOp attention) {
      return failed(checkEncoderAttention(attention)) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    FailureOr<func::FuncOp> encode =
        buildEncoderEntry(forward, "encode", positions);
    if (failed(encode))
      return signalPassFailure();
    FailureOr<ArrayAttr> buckets =
        buildEncodeBuckets(positions, [&](StringRef name, int64_t rows) {
          return buildEncoderEntry(forward, name, rows);
        });
    if (failed(buckets))
      return signalPassFailure();
    replaceNetwork(module, forward,
                   EntriesAttr::get(&getContext(), /*prefill=*/nullptr,
                                    /*decode=*/nullptr,
                                    SymbolRefAttr::get(*encode),
                                    /*prefill_chunk=*/0, positions, *buckets));
  }

  /// Erases @forward, which the entries replace: #tfm.model keeps its facts
  /// and kind but names no network any more.
  void replaceNetwork(ModuleOp module, func::FuncOp forward,
                      EntriesAttr entries) {
    forward.erase();
    ModelAttr model = getModel(module);
    setModel(module, ModelAttr::get(&getContext(), model.getContextLength(),
                                    model.getKind(), /*network=*/nullptr));
    setEntries(module, entries);
  }

  /// @forward, as #tfm.model names it, with the token arguments its kind
  /// takes: one sequence, or an encoder-decoder's source and target.
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
    unsigned inputs = type.getNumInputs();
    unsigned expected = tokenArguments(model.getKind());
    if (inputs != expected && (inputs == 1 || inputs == 2)) {
      forward.emitError("@forward takes ")
          << inputs << " token sequences, but #tfm.model's kind "
          << stringifyModelKind(model.getKind()) << " has " << expected
          << " (an encoder_decoder: source and target; otherwise one)";
      return failure();
    }
    auto tokens = inputs == expected && llvm::all_equal(type.getInputs())
                      ? dyn_cast<RankedTensorType>(type.getInput(0))
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

  /// One cache layer per attention: the whole context, or a window's ring.
  FailureOr<CacheContents> analyzeDecoderCache(func::FuncOp forward,
                                               int64_t context, int64_t chunk) {
    CacheContents contents;
    contents.context = context;
    contents.elementType = kvCache;
    WalkResult walk = forward.walk([&](AttentionOp attention) {
      if (failed(checkDecoderAttention(attention)))
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
      if (failed(contents.addLayer(attention, slots)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (contents.layers() == 0) {
      forward.emitError("@forward has no tfm.attention: nothing to cache");
      return failure();
    }
    return contents;
  }
};

} // namespace
