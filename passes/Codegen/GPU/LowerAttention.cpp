//===- LowerAttention.cpp - Attention as flash-decoding warps -------------===//
//
// tfm-gpu-lower-attention: each tfm.attention_kernel becomes block and warp
// foralls on tensors whose warps walk keys one at a time, keeping the
// online softmax state of their query row:
//
//   s   = q . k_j * scale (soft-capped: C tanh(s / C)) (+ ALiBi / relative
//         bias)
//   m'  = max(m, s);  c = exp(m - m');  p = exp(s - m')
//   l'  = l * c + p;  acc' = acc * c + p * v_j
//
// q, k_j, v_j and acc are warp-wide vectors of the head dimension
// (tfm-gpu-distribute-to-lanes gives each lane its slice and turns the dot
// product into a shuffle reduction); m, l, s, c, p are the same in every
// lane. Keys a query may not see are never walked: they are excluded by the
// bounds of one or two runs of rows (a ring's window wraps once at most),
// as the CPU's flash attention does.
//
// Decode (attention_decode, `splits` S): kernel 1 has a block per (row,
// head, split of the key rows); its warps take the split's keys in turn,
// meet in shared memory, and warp 0 merges them into the split's (m, l,
// acc), or, with S = 1, writes acc / l. Kernel 2 (S > 1) has a warp per
// (row, head) that merges the splits:
//
//   M = max_s m_s;  w_s = exp(m_s - M) (0 for a split without keys)
//   out = sum_s w_s acc_s / sum_s w_s l_s
//
// Prefill (attention_prefill): a block per (group of rows, head), a warp
// per row walking all the keys it sees.
//
//===----------------------------------------------------------------------===//
#include "dialect/RelativeBuckets.h"
#include "dialect/TfmOps.h"
#include "passes/Codegen/GPU/Passes.h"
#include "passes/LinalgBuilders.h"

#include <limits>

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPULOWERATTENTION
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value idx(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Online softmax state of one query row: max, sum, output accumulator.
struct Softmax {
  Value maximum, sum, acc;
};

/// Rows [begin, end) of the keys whose positions are row + delta.
struct KeyRun {
  Value begin, end, delta;
};

/// What one (row, head) of the attention reads.
class AttentionTile {
public:
  AttentionTile(AttentionKernelOp op)
      : op(op), keys(op.getKey()), values(op.getValue()),
        headMajor(op.isHeadMajor()), headDim(op.getHeadDim()),
        group(op.getNumHeads() / op.getNumKvHeads()) {
    Type f32 = Float32Type::get(op.getContext());
    rowType = VectorType::get({headDim}, f32);
    if (Value table = op.getRelativeBias())
      buckets = relativeBuckets(
          cast<RankedTensorType>(table.getType()).getDimSize(0),
          *op.getMaxDistance(), op.getMask() == MaskKind::bidirectional);
  }

  /// Binds the tile to query `row` (its position: offset + row) and `head`.
  void bind(OpBuilder &b, Location loc, Value rowValue, Value headValue) {
    row = rowValue;
    head = headValue;
    kvHead = arith::DivUIOp::create(b, loc, head, idx(b, loc, group));
    position = arith::AddIOp::create(b, loc, op.getOffset(), row);
    Value column = arith::MulIOp::create(b, loc, head, idx(b, loc, headDim));
    Value q = readRow(b, loc, op.getQuery(), {row, column});
    query = arith::MulFOp::create(
        b, loc, q,
        vector::BroadcastOp::create(b, loc, rowType,
                                    f32Constant(b, loc, op.getScoreScale())));
    if (Value slopes = op.getSlopes())
      slope = tensor::ExtractOp::create(b, loc, slopes, ValueRange{head});
  }

  Value numKeys(OpBuilder &b, Location loc) {
    return tensor::DimOp::create(b, loc, keys, op.getKeysDim());
  }

  /// The runs of key rows the bound query sees (one, or two for a ring).
  SmallVector<KeyRun> visibleRuns(OpBuilder &b, Location loc) {
    Value zero = idx(b, loc, 0);
    Value n = numKeys(b, loc);
    if (op.getMask() == MaskKind::bidirectional)
      return {{zero, n, zero}};
    Value own = arith::AddIOp::create(b, loc, position, idx(b, loc, 1));
    if (op.getMask() == MaskKind::causal)
      return {{zero, arith::MinUIOp::create(b, loc, own, n), zero}};
    // Sliding window: positions [own - seen, own), seen = min(own, W).
    Value seen =
        arith::MinUIOp::create(b, loc, own, idx(b, loc, *op.getWindow()));
    Value oldest = arith::SubIOp::create(b, loc, own, seen);
    if (!op.getRing())
      return {{oldest, arith::MinUIOp::create(b, loc, own, n), zero}};
    // Position p lives in slot p mod R: the window starts at the oldest
    // position's slot and wraps past slot R - 1 at most once.
    Value slots = idx(b, loc, *op.getRing());
    Value start = arith::RemUIOp::create(b, loc, oldest, slots);
    Value beforeWrap = arith::MinUIOp::create(
        b, loc, seen, arith::SubIOp::create(b, loc, slots, start));
    Value afterWrap = arith::SubIOp::create(b, loc, seen, beforeWrap);
    // Slot start + i holds oldest + i; slot i of the second run holds
    // oldest + beforeWrap + i.
    return {
        {start, arith::AddIOp::create(b, loc, start, beforeWrap),
         arith::SubIOp::create(b, loc, oldest, start)},
        {zero, afterWrap, arith::AddIOp::create(b, loc, oldest, beforeWrap)}};
  }

  /// Folds key rows [begin, end) in steps of `step` into `state`.
  Softmax walk(OpBuilder &b, Location loc, const KeyRun &run, Value begin,
               Value end, Value step, Softmax state) {
    auto loop = scf::ForOp::create(
        b, loc, begin, end, step,
        ValueRange{state.maximum, state.sum, state.acc},
        [&](OpBuilder &nb, Location nloc, Value key, ValueRange current) {
          Softmax next = fold(nb, nloc, key, run.delta,
                              {current[0], current[1], current[2]});
          scf::YieldOp::create(nb, nloc,
                               ValueRange{next.maximum, next.sum, next.acc});
        });
    return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
  }

  Softmax initialState(OpBuilder &b, Location loc) {
    return {f32Constant(b, loc, -std::numeric_limits<double>::infinity()),
            f32Constant(b, loc, 0.0), splat(b, loc, 0.0)};
  }

  Value splat(OpBuilder &b, Location loc, double value) {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(rowType,
                               b.getF32FloatAttr(static_cast<float>(value))));
  }

  Value broadcast(OpBuilder &b, Location loc, Value scalar) {
    return vector::BroadcastOp::create(b, loc, rowType, scalar);
  }

  /// Warp-wide row of `tensor` at `indices` (its innermost dimension from
  /// the last index), widened to f32.
  Value readRow(OpBuilder &b, Location loc, Value tensor, ValueRange indices) {
    Type stored = cast<ShapedType>(tensor.getType()).getElementType();
    Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(stored));
    Value row = vector::TransferReadOp::create(
        b, loc, VectorType::get({headDim}, stored), tensor, indices, padding,
        ArrayRef<bool>{true});
    if (stored.isF32())
      return row;
    return arith::ExtFOp::create(b, loc, rowType, row);
  }

  AttentionKernelOp op;

private:
  /// Key or value row `key` of the bound head's kv head.
  Value readKeyRow(OpBuilder &b, Location loc, Value tensor, Value key) {
    if (headMajor)
      return readRow(b, loc, tensor, {kvHead, key, idx(b, loc, 0)});
    Value column = arith::MulIOp::create(b, loc, kvHead, idx(b, loc, headDim));
    return readRow(b, loc, tensor, {key, column});
  }

  Softmax fold(OpBuilder &b, Location loc, Value key, Value delta,
               Softmax state) {
    Value k = readKeyRow(b, loc, keys, key);
    Value score =
        vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                    arith::MulFOp::create(b, loc, query, k));
    if (std::optional<double> cap = op.getScoreCap())
      score = softCap(b, loc, score, *cap);
    if (slope || op.getRelativeBias()) {
      // Key position minus query position.
      Value keyPosition = arith::AddIOp::create(b, loc, key, delta);
      Value relative = arith::SubIOp::create(b, loc, keyPosition, position);
      if (slope) {
        Value distance = arith::SIToFPOp::create(
            b, loc, b.getF32Type(),
            arith::IndexCastOp::create(b, loc, b.getI64Type(), relative));
        score = arith::AddFOp::create(
            b, loc, score, arith::MulFOp::create(b, loc, slope, distance));
      }
      if (Value table = op.getRelativeBias()) {
        Value bucket = emitRelativeBucket(b, loc, relative, buckets);
        score = arith::AddFOp::create(
            b, loc, score,
            tensor::ExtractOp::create(b, loc, table, ValueRange{bucket, head}));
      }
    }
    Value maximum = arith::MaximumFOp::create(b, loc, state.maximum, score);
    Value correction = math::ExpOp::create(
        b, loc, arith::SubFOp::create(b, loc, state.maximum, maximum));
    Value p = math::ExpOp::create(
        b, loc, arith::SubFOp::create(b, loc, score, maximum));
    Value sum = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, state.sum, correction), p);
    Value v = readKeyRow(b, loc, values, key);
    Value acc = arith::AddFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, state.acc, broadcast(b, loc, correction)),
        arith::MulFOp::create(b, loc, broadcast(b, loc, p), v));
    return {maximum, sum, acc};
  }

  Value keys, values;
  bool headMajor;
  int64_t headDim, group;
  RelativeBuckets buckets;

public:
  VectorType rowType;
  Value row, head, kvHead, position, query, slope;
};

/// Merges states `(m_i, l_i, acc_i)` produced by `count` walkers, read by
/// `state(i)`; a walker that saw no key has m = -inf and weighs nothing.
Softmax merge(OpBuilder &b, Location loc, AttentionTile &tile, int64_t count,
              function_ref<Softmax(OpBuilder &, Location, Value)> state) {
  Value negInf = f32Constant(b, loc, -std::numeric_limits<double>::infinity());
  auto maxLoop = scf::ForOp::create(
      b, loc, idx(b, loc, 0), idx(b, loc, count), idx(b, loc, 1),
      ValueRange{negInf},
      [&](OpBuilder &nb, Location nloc, Value i, ValueRange current) {
        Softmax s = state(nb, nloc, i);
        scf::YieldOp::create(nb, nloc,
                             ValueRange{arith::MaximumFOp::create(
                                 nb, nloc, current[0], s.maximum)});
      });
  Value maximum = maxLoop.getResult(0);
  Softmax start = tile.initialState(b, loc);
  auto sumLoop = scf::ForOp::create(
      b, loc, idx(b, loc, 0), idx(b, loc, count), idx(b, loc, 1),
      ValueRange{start.sum, start.acc},
      [&](OpBuilder &nb, Location nloc, Value i, ValueRange current) {
        Softmax s = state(nb, nloc, i);
        Value empty = arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::OEQ,
                                            s.maximum, negInf);
        Value weight = arith::SelectOp::create(
            nb, nloc, empty, f32Constant(nb, nloc, 0.0),
            math::ExpOp::create(
                nb, nloc, arith::SubFOp::create(nb, nloc, s.maximum, maximum)));
        Value sum = arith::AddFOp::create(
            nb, nloc, current[0],
            arith::MulFOp::create(nb, nloc, s.sum, weight));
        Value acc = arith::AddFOp::create(
            nb, nloc, current[1],
            arith::MulFOp::create(nb, nloc, s.acc,
                                  tile.broadcast(nb, nloc, weight)));
        scf::YieldOp::create(nb, nloc, ValueRange{sum, acc});
      });
  return {maximum, sumLoop.getResult(0), sumLoop.getResult(1)};
}

SmallVector<Attribute> blockMapping(MLIRContext *context, unsigned count) {
  static const gpu::MappingId ids[] = {
      gpu::MappingId::DimX, gpu::MappingId::DimY, gpu::MappingId::DimZ};
  SmallVector<Attribute> mapping;
  for (unsigned i = 0; i < count; ++i)
    mapping.push_back(
        gpu::GPUBlockMappingAttr::get(context, ids[count - 1 - i]));
  return mapping;
}

ArrayAttr warpMapping(MLIRContext *context) {
  return ArrayAttr::get(
      context, {gpu::GPUWarpMappingAttr::get(context, gpu::MappingId::DimX)});
}

/// An f32 tensor in the block's shared memory.
Value sharedTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  auto alloc = bufferization::AllocTensorOp::create(b, loc, type, ValueRange{});
  alloc.setMemorySpaceAttr(
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  return alloc;
}

/// Tiles are written into slices of the shared outputs they are inserted
/// into, so that bufferization writes them in place (a kernel allocates
/// nothing but its shared memory).
struct Insert {
  Value tile;
  SmallVector<OpFoldResult> offsets, sizes;
};

/// The slice of `out` at `offsets` of `sizes`, with its unit dimensions
/// dropped to `shape`.
Value sliceOf(OpBuilder &b, Location loc, Value out,
              ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
              ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(out.getType()).getElementType());
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, type, out, offsets, sizes,
                                        strides);
}

/// `scalar` written to element `offsets` of `out`.
Insert scalarInsert(OpBuilder &b, Location loc, Value scalar, Value out,
                    SmallVector<OpFoldResult> offsets) {
  SmallVector<OpFoldResult> sizes(offsets.size(), b.getIndexAttr(1));
  Value slice = sliceOf(b, loc, out, offsets, sizes, {1});
  Value tile = tensor::InsertOp::create(b, loc, scalar, slice,
                                        ValueRange{idx(b, loc, 0)});
  return {tile, offsets, sizes};
}

/// The row vector `row` written at `offsets` of `out`, its innermost
/// dimension (the last offset) `length` long.
Insert rowInsert(OpBuilder &b, Location loc, Value row, Value out,
                 SmallVector<OpFoldResult> offsets, int64_t length) {
  SmallVector<OpFoldResult> sizes(offsets.size(), b.getIndexAttr(1));
  sizes.back() = b.getIndexAttr(length);
  Value slice = sliceOf(b, loc, out, offsets, sizes, {length});
  Value tile = vector::TransferWriteOp::create(b, loc, row, slice,
                                               ValueRange{idx(b, loc, 0)},
                                               ArrayRef<bool>{true})
                   .getResult();
  return {tile, offsets, sizes};
}

class LowerAttention {
public:
  LowerAttention(AttentionKernelOp op, GpuKernelConfigAttr config)
      : op(op), config(config) {}

  LogicalResult rewrite(RewriterBase &b) {
    auto queryType = cast<RankedTensorType>(op.getQuery().getType());
    rows = queryType.getDimSize(0);
    heads = op.getNumHeads();
    headDim = op.getHeadDim();
    warps = config.getNumWarps();
    if (warps < 1)
      return op.emitOpError("needs whole warps for its GPU attention kernel");
    b.setInsertionPoint(op);
    Value result;
    if (config.getKind() == GpuKernelKind::attention_prefill)
      result = prefill(b);
    else if (config.getSplits() == 1)
      result = decodeSingle(b);
    else
      result = decodeSplit(b);
    b.replaceOp(op, result);
    return success();
  }

private:
  /// A forall over blocks of (rows, heads[, splits]) whose body builds the
  /// block's results from `body`, which returns for each shared output the
  /// tile to insert and where.
  using BlockBody = function_ref<SmallVector<Insert>(
      OpBuilder &, Location, ValueRange ids, ValueRange outs)>;

  Value blocks(OpBuilder &b, Location loc, ArrayRef<int64_t> counts,
               ValueRange outs, GpuKernelConfigAttr kernel, BlockBody body,
               SmallVector<Value> *results = nullptr) {
    SmallVector<OpFoldResult> bounds;
    for (int64_t count : counts)
      bounds.push_back(b.getIndexAttr(count));
    auto forall = scf::ForallOp::create(
        b, loc, bounds, outs,
        b.getArrayAttr(blockMapping(b.getContext(), counts.size())));
    setKernelConfig(forall, kernel);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(forall.getBody());
      SmallVector<Insert> inserts =
          body(b, loc, forall.getInductionVars(), forall.getRegionIterArgs());
      b.setInsertionPointToStart(forall.getTerminator().getBody());
      for (auto [insert, out] :
           llvm::zip(inserts, forall.getRegionIterArgs())) {
        SmallVector<OpFoldResult> strides(insert.offsets.size(),
                                          b.getIndexAttr(1));
        tensor::ParallelInsertSliceOp::create(
            b, loc, insert.tile, out, insert.offsets, insert.sizes, strides);
      }
    }
    if (results)
      results->assign(forall.getResults().begin(), forall.getResults().end());
    return forall.getResult(0);
  }

  /// One warp-mapped forall of `count` warps over `outs`.
  Value warpLoop(OpBuilder &b, Location loc, int64_t count, ValueRange outs,
                 BlockBody body, SmallVector<Value> *results = nullptr) {
    auto forall = scf::ForallOp::create(b, loc, {b.getIndexAttr(count)}, outs,
                                        warpMapping(b.getContext()));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(forall.getBody());
      SmallVector<Insert> inserts =
          body(b, loc, forall.getInductionVars(), forall.getRegionIterArgs());
      b.setInsertionPointToStart(forall.getTerminator().getBody());
      for (auto [insert, out] :
           llvm::zip(inserts, forall.getRegionIterArgs())) {
        SmallVector<OpFoldResult> strides(insert.offsets.size(),
                                          b.getIndexAttr(1));
        tensor::ParallelInsertSliceOp::create(
            b, loc, insert.tile, out, insert.offsets, insert.sizes, strides);
      }
    }
    if (results)
      results->assign(forall.getResults().begin(), forall.getResults().end());
    return forall.getResult(0);
  }

  /// The output row `acc / l`.
  static Value normalised(OpBuilder &b, Location loc, AttentionTile &tile,
                          Softmax state) {
    return arith::DivFOp::create(b, loc, state.acc,
                                 tile.broadcast(b, loc, state.sum));
  }

  /// Walks the keys of `runs` clipped to rows [lo, hi), warp `warp` of
  /// `stride` taking every stride-th key.
  Softmax walkRange(OpBuilder &b, Location loc, AttentionTile &tile,
                    ArrayRef<KeyRun> runs, Value lo, Value hi, Value warp,
                    int64_t stride) {
    Softmax state = tile.initialState(b, loc);
    for (const KeyRun &run : runs) {
      Value begin = arith::MaxUIOp::create(b, loc, run.begin, lo);
      Value end = arith::MinUIOp::create(b, loc, run.end, hi);
      Value first = arith::AddIOp::create(b, loc, begin, warp);
      state = tile.walk(b, loc, run, first, end, idx(b, loc, stride), state);
    }
    return state;
  }

  GpuKernelConfigAttr blockConfig(int64_t threads) {
    return GpuKernelConfigAttr::get(op.getContext(), config.getKind(), {1, 1},
                                    {}, {}, {threads, 1, 1}, 1, 1,
                                    config.getSplits());
  }

  /// Prefill: blocks over (row groups, heads), a warp per row.
  Value prefill(OpBuilder &b) {
    Location loc = op.getLoc();
    int64_t rowsPerBlock = warps;
    return blocks(
        b, loc, {rows / rowsPerBlock, heads}, ValueRange{op.getInit()},
        blockConfig(warps * kWarpSize),
        [&](OpBuilder &b, Location loc, ValueRange ids, ValueRange outs) {
          Value firstRow =
              arith::MulIOp::create(b, loc, ids[0], idx(b, loc, rowsPerBlock));
          Value column =
              arith::MulIOp::create(b, loc, ids[1], idx(b, loc, headDim));
          SmallVector<OpFoldResult> offsets = {firstRow, column};
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rowsPerBlock),
                                             b.getIndexAttr(headDim)};
          Value blockTile =
              sliceOf(b, loc, outs[0], offsets, sizes, {rowsPerBlock, headDim});
          Value written = warpLoop(
              b, loc, rowsPerBlock, ValueRange{blockTile},
              [&](OpBuilder &b, Location loc, ValueRange wids,
                  ValueRange warpOuts) {
                AttentionTile tile(op);
                Value row = arith::AddIOp::create(b, loc, firstRow, wids[0]);
                tile.bind(b, loc, row, ids[1]);
                SmallVector<KeyRun> runs = tile.visibleRuns(b, loc);
                Softmax state =
                    walkRange(b, loc, tile, runs, idx(b, loc, 0),
                              tile.numKeys(b, loc), idx(b, loc, 0), 1);
                return SmallVector<Insert>{rowInsert(
                    b, loc, normalised(b, loc, tile, state), warpOuts[0],
                    {wids[0], b.getIndexAttr(0)}, headDim)};
              });
          return SmallVector<Insert>{{written, offsets, sizes}};
        });
  }

  /// The rows of split `s`: [s * C, (s + 1) * C) of the n keys written,
  /// C = ceil(n / S).
  std::pair<Value, Value> splitRows(OpBuilder &b, Location loc,
                                    AttentionTile &tile, Value split,
                                    int64_t splits) {
    Value n = tile.numKeys(b, loc);
    if (splits == 1)
      return {idx(b, loc, 0), n};
    Value length = arith::CeilDivUIOp::create(b, loc, n, idx(b, loc, splits));
    Value lo = arith::MinUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, split, length), n);
    Value hi = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lo, length), n);
    return {lo, hi};
  }

  /// The block's state over its warps' keys of the split: each warp walks
  /// every warps-th key, the states meet in shared memory and warp 0
  /// merges them and writes `finish`'s inserts into `finishOuts`.
  using Finish = function_ref<SmallVector<Insert>(
      OpBuilder &, Location, AttentionTile &, Softmax, ValueRange outs)>;
  SmallVector<Value> walkBlock(OpBuilder &b, Location loc, Value row,
                               Value head, Value split, ValueRange finishOuts,
                               Finish finish) {
    int64_t splits = config.getSplits();
    Value maxima = sharedTensor(b, loc, {warps});
    Value sums = sharedTensor(b, loc, {warps});
    Value accs = sharedTensor(b, loc, {warps, headDim});
    SmallVector<Value> states;
    warpLoop(
        b, loc, warps, ValueRange{maxima, sums, accs},
        [&](OpBuilder &b, Location loc, ValueRange wids, ValueRange outs) {
          AttentionTile tile(op);
          tile.bind(b, loc, row, head);
          auto [lo, hi] = splitRows(b, loc, tile, split, splits);
          SmallVector<KeyRun> runs = tile.visibleRuns(b, loc);
          Softmax state = walkRange(b, loc, tile, runs, lo, hi, wids[0], warps);
          return SmallVector<Insert>{
              scalarInsert(b, loc, state.maximum, outs[0], {wids[0]}),
              scalarInsert(b, loc, state.sum, outs[1], {wids[0]}),
              rowInsert(b, loc, state.acc, outs[2],
                        {wids[0], b.getIndexAttr(0)}, headDim)};
        },
        &states);
    SmallVector<Value> results;
    warpLoop(
        b, loc, 1, finishOuts,
        [&](OpBuilder &b, Location loc, ValueRange, ValueRange outs) {
          AttentionTile tile(op);
          Softmax merged = merge(
              b, loc, tile, warps,
              [&](OpBuilder &b, Location loc, Value w) -> Softmax {
                return {tensor::ExtractOp::create(b, loc, states[0], w),
                        tensor::ExtractOp::create(b, loc, states[1], w),
                        tile.readRow(b, loc, states[2], {w, idx(b, loc, 0)})};
              });
          return finish(b, loc, tile, merged, outs);
        },
        &results);
    return results;
  }

  /// Decode, one split: blocks over (rows, heads) write acc / l.
  Value decodeSingle(OpBuilder &b) {
    Location loc = op.getLoc();
    return blocks(
        b, loc, {rows, heads}, ValueRange{op.getInit()},
        blockConfig(warps * kWarpSize),
        [&](OpBuilder &b, Location loc, ValueRange ids, ValueRange outs) {
          Value column =
              arith::MulIOp::create(b, loc, ids[1], idx(b, loc, headDim));
          SmallVector<OpFoldResult> offsets = {ids[0], column};
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                             b.getIndexAttr(headDim)};
          Value outTile = sliceOf(b, loc, outs[0], offsets, sizes, {headDim});
          SmallVector<Value> written = walkBlock(
              b, loc, ids[0], ids[1], idx(b, loc, 0), ValueRange{outTile},
              [&](OpBuilder &b, Location loc, AttentionTile &tile,
                  Softmax state, ValueRange warpOuts) {
                return SmallVector<Insert>{
                    rowInsert(b, loc, normalised(b, loc, tile, state),
                              warpOuts[0], {b.getIndexAttr(0)}, headDim)};
              });
          return SmallVector<Insert>{{written[0], offsets, sizes}};
        });
  }

  /// Decode, S splits: kernel 1 writes each split's state, kernel 2 merges.
  Value decodeSplit(OpBuilder &b) {
    Location loc = op.getLoc();
    int64_t splits = config.getSplits();
    Value maxima = emptyTensor(b, loc, {rows, heads, splits});
    Value sums = emptyTensor(b, loc, {rows, heads, splits});
    Value accs = emptyTensor(b, loc, {rows, heads, splits, headDim});
    SmallVector<Value> partials;
    blocks(
        b, loc, {rows, heads, splits}, ValueRange{maxima, sums, accs},
        blockConfig(warps * kWarpSize),
        [&](OpBuilder &b, Location loc, ValueRange ids, ValueRange outs) {
          SmallVector<OpFoldResult> at = {ids[0], ids[1], ids[2]};
          SmallVector<OpFoldResult> one(3, b.getIndexAttr(1));
          SmallVector<OpFoldResult> accAt = {ids[0], ids[1], ids[2],
                                             b.getIndexAttr(0)};
          SmallVector<OpFoldResult> accSizes = {
              b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(1),
              b.getIndexAttr(headDim)};
          // The split's state, written by warp 0 into slices of the
          // partial tensors.
          Value maxTile = sliceOf(b, loc, outs[0], at, one, {1});
          Value sumTile = sliceOf(b, loc, outs[1], at, one, {1});
          Value accTile = sliceOf(b, loc, outs[2], accAt, accSizes, {headDim});
          SmallVector<Value> written =
              walkBlock(b, loc, ids[0], ids[1], ids[2],
                        ValueRange{maxTile, sumTile, accTile},
                        [&](OpBuilder &b, Location loc, AttentionTile &,
                            Softmax state, ValueRange warpOuts) {
                          return SmallVector<Insert>{
                              scalarInsert(b, loc, state.maximum, warpOuts[0],
                                           {b.getIndexAttr(0)}),
                              scalarInsert(b, loc, state.sum, warpOuts[1],
                                           {b.getIndexAttr(0)}),
                              rowInsert(b, loc, state.acc, warpOuts[2],
                                        {b.getIndexAttr(0)}, headDim)};
                        });
          return SmallVector<Insert>{{written[0], at, one},
                                     {written[1], at, one},
                                     {written[2], accAt, accSizes}};
        },
        &partials);

    // Kernel 2: a warp per (row, head) merges the splits.
    GpuKernelConfigAttr combine = GpuKernelConfigAttr::get(
        op.getContext(), GpuKernelKind::attention_decode, {1, 1}, {}, {},
        {kWarpSize, 1, 1}, 1, 1, 1);
    return blocks(
        b, loc, {rows, heads}, ValueRange{op.getInit()}, combine,
        [&](OpBuilder &b, Location loc, ValueRange ids, ValueRange outs) {
          Value column =
              arith::MulIOp::create(b, loc, ids[1], idx(b, loc, headDim));
          SmallVector<OpFoldResult> offsets = {ids[0], column};
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                             b.getIndexAttr(headDim)};
          Value outTile = sliceOf(b, loc, outs[0], offsets, sizes, {headDim});
          Value written = warpLoop(
              b, loc, 1, ValueRange{outTile},
              [&](OpBuilder &b, Location loc, ValueRange, ValueRange warpOuts) {
                AttentionTile tile(op);
                Softmax merged =
                    merge(b, loc, tile, splits,
                          [&](OpBuilder &b, Location loc, Value s) -> Softmax {
                            Value zero = idx(b, loc, 0);
                            return {tensor::ExtractOp::create(
                                        b, loc, partials[0],
                                        ValueRange{ids[0], ids[1], s}),
                                    tensor::ExtractOp::create(
                                        b, loc, partials[1],
                                        ValueRange{ids[0], ids[1], s}),
                                    tile.readRow(b, loc, partials[2],
                                                 {ids[0], ids[1], s, zero})};
                          });
                return SmallVector<Insert>{
                    rowInsert(b, loc, normalised(b, loc, tile, merged),
                              warpOuts[0], {b.getIndexAttr(0)}, headDim)};
              });
          return SmallVector<Insert>{{written, offsets, sizes}};
        });
  }

  AttentionKernelOp op;
  GpuKernelConfigAttr config;
  int64_t rows = 0, heads = 0, headDim = 0, warps = 0;
};

struct TfmGpuLowerAttention
    : mlir::tfm::impl::TfmGpuLowerAttentionBase<TfmGpuLowerAttention> {
  void runOnOperation() override {
    SmallVector<AttentionKernelOp> kernels;
    getOperation()->walk([&](AttentionKernelOp op) {
      if (getKernelConfig(op))
        kernels.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (AttentionKernelOp op : kernels) {
      GpuKernelConfigAttr config = getKernelConfig(op);
      if (config.getKind() != GpuKernelKind::attention_decode &&
          config.getKind() != GpuKernelKind::attention_prefill) {
        op.emitOpError("is configured as a ")
            << stringifyGpuKernelKind(config.getKind())
            << ", not an attention kernel";
        return signalPassFailure();
      }
      if (failed(LowerAttention(op, config).rewrite(rewriter)))
        return signalPassFailure();
    }
  }
};

} // namespace
