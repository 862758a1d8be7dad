//===- TileAttention.cpp - tfm.attention_kernel as CPU flash attention ----===//
//
// tfm-cpu-tile-attention tiles each attention kernel over (query row, head)
// through its TilingInterface into one `scf.forall`, then lowers each
// one-row, one-head tile to a flash-attention loop nest. The tile keeps its
// query (pre-scaled by the score scale, 1/sqrt(head_dim) unless the op says
// otherwise), a running maximum m, a running sum l and an output
// accumulator in registers and walks the keys it may see in blocks of B:
//
//   scores[j] = q . k[jb + j]       for j < n = min(B, visible - jb)
//   m'        = max(m, max_j scores[j])
//   p         = exp(scores - m')     (lanes past n: exp(-inf) = 0)
//   l         = l * exp(m - m') + sum_j p[j]
//   acc       = acc * exp(m - m') + sum_j p[j] * v[jb + j]
//
// and writes acc / l. The keys a query sees are one or two contiguous runs,
// walked one after the other (the softmax does not care about the order):
// a causal query stops at its own position (keys [0, offset + 1) for the
// tile's one row), a sliding window of W also starts W - 1 keys before it,
// and in a ring of R slots the window's run wraps past slot R - 1 to slot 0
// at most once. Masked keys are never read. Nothing larger than one block
// of scores (a vector) exists. ALiBi adds slope * (key position - query
// position) to a block's scores: key row j of a run holds position
// j + (the run's first position - its first row), so the bias of a block
// from row `first` is slope * (iota + first - origin) with one origin per
// run. A relative position bias (T5) looks each lane's bias up in the
// head's table at the bucket of first + lane - origin, whose integer steps
// are constants of the kernel (dialect/RelativeBuckets.h): no bias matrix
// either.
//
// Whole blocks (n = B) are unrolled: each key's dot product is kept as B
// partial sums (head_dim / B multiply-adds of B lanes) and one tree of
// shuffles and adds reduces all B of them at once into the block's score
// vector (soft-capped, cap * tanh(scores / cap), when the op caps them),
// instead of a horizontal reduction and an insert per key; the value
// products alternate between two accumulators so that consecutive keys do
// not wait on each other's FMA. The whole-block loop is software-pipelined
// (block i + 1's scores are computed while block i is folded), which lets
// the next keys' loads overlap this block's exp and FMAs. The last, partial
// block walks its keys in a loop. Keys and values of an f16 cache are
// widened to f32 as they are loaded.
//
//===----------------------------------------------------------------------===//
#include "dialect/RelativeBuckets.h"
#include "dialect/TfmOps.h"
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"

#include <cmath>
#include <limits>
#include <tuple>

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUTILEATTENTION
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Running state of the online softmax: maximum m, sum l, output acc.
struct SoftmaxState {
  Value maximum, sum, output;
};

/// Lowers tiles of one query row and one head to the flash loop nest.
class FlashAttentionTile {
public:
  explicit FlashAttentionTile(int64_t blockKeys) : blockKeys(blockKeys) {}

  /// Replaces `op` (one row, one head) by the loop nest writing its init.
  LogicalResult rewrite(RewriterBase &b, AttentionKernelOp op) const {
    Location loc = op.getLoc();
    b.setInsertionPoint(op);
    Kernel kernel(op, blockKeys);

    Value zero = index(b, loc, 0);
    Value numKeys = tensor::DimOp::create(b, loc, op.getKey(), op.getKeysDim());
    if (!kernel.headMajor)
      kernel.kvColumn = zero;
    kernel.kvHead = zero;

    Value q = vector::TransferReadOp::create(
        b, loc, kernel.rowType, op.getQuery(), ValueRange{zero, zero},
        f32Constant(b, loc, 0.0), ArrayRef<bool>{true});
    kernel.query = arith::MulFOp::create(
        b, loc, q, splat(b, loc, kernel.rowType, op.getScoreScale()));
    kernel.cap = op.getScoreCap();
    if (Value slopes = op.getSlopes())
      kernel.slope = vector::BroadcastOp::create(
          b, loc, kernel.blockType,
          tensor::ExtractOp::create(b, loc, slopes, ValueRange{zero}));
    if (Value table = op.getRelativeBias()) {
      kernel.relativeBias = table;
      kernel.buckets = relativeBuckets(
          cast<RankedTensorType>(table.getType()).getDimSize(0),
          *op.getMaxDistance(), op.getMask() == MaskKind::bidirectional);
    }

    double negInf = -std::numeric_limits<double>::infinity();
    SoftmaxState state = {f32Constant(b, loc, negInf), f32Constant(b, loc, 0.0),
                          splat(b, loc, kernel.rowType, 0.0)};
    for (const KeyRun &run : visibleRuns(b, loc, op, numKeys)) {
      Kernel runKernel = kernel;
      runKernel.origin = run.origin;
      state = walkRun(b, loc, runKernel, run.begin, run.end, state);
    }

    Value out = arith::DivFOp::create(
        b, loc, state.output,
        vector::BroadcastOp::create(b, loc, kernel.rowType, state.sum));
    // Written into the tile's init, a slice of the loop's shared output, so
    // that bufferization writes it in place (no temporary per tile).
    Value tile = vector::TransferWriteOp::create(b, loc, out, op.getInit(),
                                                 ValueRange{zero, zero},
                                                 ArrayRef<bool>{true})
                     .getResult();
    b.replaceOp(op, tile);
    return success();
  }

private:
  static Value index(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  using BlockBody =
      function_ref<SoftmaxState(OpBuilder &, Location, Value, SoftmaxState)>;

  /// Folds the blocks starting at [begin, end) in steps of `step` into
  /// `state`.
  static SoftmaxState walkBlocks(OpBuilder &b, Location loc, Value begin,
                                 Value end, Value step, SoftmaxState state,
                                 BlockBody body) {
    auto loop = scf::ForOp::create(
        b, loc, begin, end, step,
        ValueRange{state.maximum, state.sum, state.output},
        [&](OpBuilder &nb, Location nloc, Value first, ValueRange current) {
          SoftmaxState next =
              body(nb, nloc, first, {current[0], current[1], current[2]});
          scf::YieldOp::create(nb, nloc,
                               ValueRange{next.maximum, next.sum, next.output});
        });
    return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
  }

  /// What one (query row, head) iteration reads, and how it folds a block.
  struct Kernel {
    Kernel(AttentionKernelOp op, int64_t blockKeys)
        : keys(op.getKey()), values(op.getValue()), headMajor(op.isHeadMajor()),
          headDim(op.getHeadDim()), blockKeys(blockKeys) {
      Type f32 = Float32Type::get(op.getContext());
      rowType = VectorType::get({headDim}, f32);
      blockType = VectorType::get({blockKeys}, f32);
    }

    /// Whole blocks can be unrolled when a key's dot product splits into
    /// lanes of the block's width and the reduction tree halves evenly.
    bool canUnrollBlocks() const {
      return blockKeys > 1 && llvm::isPowerOf2_64(blockKeys) &&
             headDim % blockKeys == 0;
    }

    /// The `type`-sized part of key or value `row` of this head's kv head
    /// that starts at feature `feature`.
    Value read(OpBuilder &b, Location loc, Value tensor, Value row,
               int64_t feature, VectorType type) const {
      SmallVector<Value> indices;
      if (headMajor)
        indices = {kvHead, row, index(b, loc, feature)};
      else if (feature == 0)
        indices = {row, kvColumn};
      else
        indices = {row, arith::AddIOp::create(b, loc, kvColumn,
                                              index(b, loc, feature))};
      // In bounds: the padding value is never read.
      Type stored = cast<ShapedType>(tensor.getType()).getElementType();
      if (stored.isF32())
        return vector::TransferReadOp::create(b, loc, type, tensor, indices,
                                              f32Constant(b, loc, 0.0),
                                              ArrayRef<bool>{true});
      // An f16 cache: widened in registers (vcvtph2ps), so the scores and
      // the output accumulate in f32 as for an f32 cache.
      Value narrow = vector::TransferReadOp::create(
          b, loc, VectorType::get(type.getShape(), stored), tensor, indices,
          arith::ConstantOp::create(b, loc, b.getZeroAttr(stored)),
          ArrayRef<bool>{true});
      return arith::ExtFOp::create(b, loc, type, narrow);
    }

    /// New maximum and sum for the block's `scores`; returns the block's
    /// softmax weights and the state with the output rescaled (not yet
    /// accumulated).
    std::pair<SoftmaxState, Value> rescale(OpBuilder &b, Location loc,
                                           Value scores,
                                           SoftmaxState state) const {
      Value maximum = arith::MaximumFOp::create(
          b, loc, state.maximum,
          vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXNUMF,
                                      scores));
      Value weights = math::ExpOp::create(
          b, loc,
          arith::SubFOp::create(
              b, loc, scores,
              vector::BroadcastOp::create(b, loc, blockType, maximum)));
      Value factor = math::ExpOp::create(
          b, loc, arith::SubFOp::create(b, loc, state.maximum, maximum));
      Value sum = arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, state.sum, factor),
          vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                      weights));
      Value output = arith::MulFOp::create(
          b, loc, state.output,
          vector::BroadcastOp::create(b, loc, rowType, factor));
      return {{maximum, sum, output}, weights};
    }

    /// `acc + weight * v[row]`.
    Value accumulate(OpBuilder &b, Location loc, Value output, Value weights,
                     OpFoldResult lane, Value row) const {
      Value v = read(b, loc, values, row, 0, rowType);
      Value weight = vector::ExtractOp::create(b, loc, weights, lane);
      return vector::FMAOp::create(
          b, loc, vector::BroadcastOp::create(b, loc, rowType, weight), v,
          output);
    }

    /// Folds the whole blocks in [begin, end) (`end - begin` a multiple of
    /// blockKeys) into `state`, software-pipelined: the iteration that
    /// accumulates block i's values computes block i + 1's scores, so that the
    /// loads of the next keys are issued alongside this block's exp and value
    /// FMAs rather than after them.
    SoftmaxState wholeBlocks(OpBuilder &b, Location loc, Value begin, Value end,
                             SoftmaxState state) const {
      Value step = index(b, loc, blockKeys);
      Value any =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, end, begin);
      auto pipelined = scf::IfOp::create(
          b, loc, any,
          [&](OpBuilder &tb, Location tloc) {
            Value last = arith::SubIOp::create(tb, tloc, end, step);
            auto loop = scf::ForOp::create(
                tb, tloc, begin, last, step,
                ValueRange{state.maximum, state.sum, state.output,
                           blockScores(tb, tloc, begin)},
                [&](OpBuilder &lb, Location lloc, Value first,
                    ValueRange carried) {
                  Value next = blockScores(
                      lb, lloc, arith::AddIOp::create(lb, lloc, first, step));
                  SoftmaxState folded =
                      foldWholeBlock(lb, lloc, first, carried[3],
                                     {carried[0], carried[1], carried[2]});
                  scf::YieldOp::create(lb, lloc,
                                       ValueRange{folded.maximum, folded.sum,
                                                  folded.output, next});
                });
            SoftmaxState folded = foldWholeBlock(
                tb, tloc, last, loop.getResult(3),
                {loop.getResult(0), loop.getResult(1), loop.getResult(2)});
            scf::YieldOp::create(
                tb, tloc,
                ValueRange{folded.maximum, folded.sum, folded.output});
          },
          [&](OpBuilder &eb, Location eloc) {
            scf::YieldOp::create(
                eb, eloc, ValueRange{state.maximum, state.sum, state.output});
          });
      return {pipelined.getResult(0), pipelined.getResult(1),
              pipelined.getResult(2)};
    }

    /// The scores of the `blockKeys` keys from `first`, unrolled.
    Value blockScores(OpBuilder &b, Location loc, Value first) const {
      int64_t chunks = headDim / blockKeys;
      SmallVector<Value> queryChunks;
      for (int64_t c = 0; c < chunks; ++c)
        queryChunks.push_back(vector::ExtractStridedSliceOp::create(
            b, loc, query, ArrayRef<int64_t>{c * blockKeys},
            ArrayRef<int64_t>{blockKeys}, ArrayRef<int64_t>{1}));
      SmallVector<Value> partials;
      for (int64_t j = 0; j < blockKeys; ++j) {
        Value row = arith::AddIOp::create(b, loc, first, index(b, loc, j));
        Value partial;
        for (int64_t c = 0; c < chunks; ++c) {
          Value k = read(b, loc, keys, row, c * blockKeys, blockType);
          partial = partial ? vector::FMAOp::create(b, loc, queryChunks[c], k,
                                                    partial)
                                  .getResult()
                            : arith::MulFOp::create(b, loc, queryChunks[c], k)
                                  .getResult();
        }
        partials.push_back(partial);
      }
      return capped(b, loc, sumLanesOfEach(b, loc, partials));
    }

    /// Folds the whole block from `first`, whose scores are `scores`.
    SoftmaxState foldWholeBlock(OpBuilder &b, Location loc, Value first,
                                Value scores, SoftmaxState state) const {
      auto [next, weights] =
          rescale(b, loc, withBias(b, loc, scores, first), state);
      // Two accumulators: even and odd keys' FMAs are independent.
      Value outputs[2] = {next.output, splat(b, loc, rowType, 0.0)};
      for (int64_t j = 0; j < blockKeys; ++j)
        outputs[j % 2] =
            accumulate(b, loc, outputs[j % 2], weights, b.getIndexAttr(j),
                       arith::AddIOp::create(b, loc, first, index(b, loc, j)));
      next.output = arith::AddFOp::create(b, loc, outputs[0], outputs[1]);
      return next;
    }

    /// The last block: `count` (< blockKeys) keys from `first`; lanes past
    /// `count` score -inf, so their weights are 0.
    SoftmaxState partialBlock(OpBuilder &b, Location loc, Value first,
                              Value count, SoftmaxState state) const {
      double negInf = -std::numeric_limits<double>::infinity();
      Value scores = forEachKey(
          b, loc, count, splat(b, loc, blockType, negInf),
          [&](OpBuilder &kb, Location kloc, Value j, Value partial) -> Value {
            Value row = arith::AddIOp::create(kb, kloc, first, j);
            Value k = read(kb, kloc, keys, row, 0, rowType);
            Value dot = vector::ReductionOp::create(
                kb, kloc, vector::CombiningKind::ADD,
                arith::MulFOp::create(kb, kloc, query, k));
            // Capped key by key: the -inf of the lanes past `count` must
            // stay -inf.
            return vector::InsertOp::create(kb, kloc, capped(kb, kloc, dot),
                                            partial, j);
          });
      // Not a structured binding: the lambda below captures the weights.
      SoftmaxState next;
      Value weights;
      std::tie(next, weights) =
          rescale(b, loc, withBias(b, loc, scores, first), state);
      next.output = forEachKey(
          b, loc, count, next.output,
          [&](OpBuilder &kb, Location kloc, Value j, Value partial) -> Value {
            Value row = arith::AddIOp::create(kb, kloc, first, j);
            return accumulate(kb, kloc, partial, weights, j, row);
          });
      return next;
    }

    /// `scores` of the block from row `first` plus its ALiBi biases,
    /// slope * (first + lane - origin), or its relative position biases,
    /// table[bucket(first + lane - origin)]; the scores themselves without
    /// either.
    Value withBias(OpBuilder &b, Location loc, Value scores,
                   Value first) const {
      if (relativeBias)
        return withRelativeBias(b, loc, scores, first);
      if (!slope)
        return scores;
      Value relative = arith::IndexCastOp::create(
          b, loc, b.getI64Type(), arith::SubIOp::create(b, loc, first, origin));
      Value lanes = vector::StepOp::create(
          b, loc, VectorType::get({blockKeys}, b.getIndexType()));
      Value distances = arith::SIToFPOp::create(
          b, loc, blockType,
          arith::AddIOp::create(
              b, loc,
              arith::IndexCastOp::create(
                  b, loc, VectorType::get({blockKeys}, b.getI64Type()), lanes),
              vector::BroadcastOp::create(
                  b, loc, VectorType::get({blockKeys}, b.getI64Type()),
                  relative)));
      return vector::FMAOp::create(b, loc, slope, distances, scores);
    }

    /// The relative position bias of each lane's key, looked up by its
    /// bucket (lanes past a partial block's keys look up a bucket too: their
    /// scores are -inf whatever is added).
    Value withRelativeBias(OpBuilder &b, Location loc, Value scores,
                           Value first) const {
      Value relative = arith::SubIOp::create(b, loc, first, origin);
      Value zero = index(b, loc, 0);
      Value biases = splat(b, loc, blockType, 0.0);
      for (int64_t lane = 0; lane < blockKeys; ++lane) {
        Value bucket = emitRelativeBucket(
            b, loc,
            arith::AddIOp::create(b, loc, relative, index(b, loc, lane)),
            *buckets);
        Value bias = tensor::ExtractOp::create(b, loc, relativeBias,
                                               ValueRange{bucket, zero});
        biases = vector::InsertOp::create(b, loc, bias, biases, lane);
      }
      return arith::AddFOp::create(b, loc, scores, biases);
    }

    /// Given N vectors of N lanes (N a power of two), the vector whose lane
    /// j is the sum of vector j's lanes: log2(N) rounds that pair vectors
    /// up, each sum of two shuffles halving every key's run of partial
    /// sums (N - 1 additions in all, no horizontal reductions).
    static Value sumLanesOfEach(OpBuilder &b, Location loc,
                                SmallVector<Value> vectors) {
      int64_t lanes = static_cast<int64_t>(vectors.size());
      // Each vector holds runs of `run` partial sums, one run per key, keys
      // in order.
      for (int64_t run = lanes; run > 1; run /= 2) {
        SmallVector<int64_t> lowHalves, highHalves;
        for (int64_t source : {int64_t(0), lanes})
          for (int64_t start = 0; start < lanes; start += run)
            for (int64_t i = 0; i < run / 2; ++i) {
              lowHalves.push_back(source + start + i);
              highHalves.push_back(source + start + run / 2 + i);
            }
        SmallVector<Value> paired;
        for (size_t i = 0; i < vectors.size(); i += 2) {
          Value low = vector::ShuffleOp::create(b, loc, vectors[i],
                                                vectors[i + 1], lowHalves);
          Value high = vector::ShuffleOp::create(b, loc, vectors[i],
                                                 vectors[i + 1], highHalves);
          paired.push_back(arith::AddFOp::create(b, loc, low, high));
        }
        vectors = std::move(paired);
      }
      return vectors.front();
    }

    /// Folds `body(j, partial)` over keys j in [0, count) of a block.
    static Value
    forEachKey(OpBuilder &b, Location loc, Value count, Value initial,
               function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
      auto loop = scf::ForOp::create(
          b, loc, index(b, loc, 0), count, index(b, loc, 1),
          ValueRange{initial},
          [&](OpBuilder &lb, Location lloc, Value j, ValueRange partial) {
            scf::YieldOp::create(lb, lloc, body(lb, lloc, j, partial[0]));
          });
      return loop.getResult(0);
    }

    Value keys, values;
    bool headMajor;
    int64_t headDim, blockKeys;
    VectorType rowType, blockType;
    Value kvHead, kvColumn; ///< the tile's key/value head (0 in the tile)
    Value query;            ///< the tile's query, pre-scaled
    Value slope;            ///< the head's ALiBi slope, splat; null: none
    Value relativeBias;     ///< the head's [buckets, 1] T5 bias; null: none
    std::optional<RelativeBuckets> buckets; ///< with relativeBias
    Value origin; ///< with a bias: row - origin = key - query position
    std::optional<double> cap; ///< the scores' soft cap, if any

    /// `scores` (a block's or one key's) soft-capped if the op caps them.
    Value capped(OpBuilder &b, Location loc, Value scores) const {
      return cap ? softCap(b, loc, scores, *cap) : scores;
    }
  };

  /// Key rows [begin, end), each at position row - origin relative to the
  /// query (origin is only computed for ALiBi).
  struct KeyRun {
    Value begin, end, origin;
  };

  /// The runs of key rows that the tile's query (at position `offset`)
  /// sees, among `numKeys` rows.
  static SmallVector<KeyRun> visibleRuns(OpBuilder &b, Location loc,
                                         AttentionKernelOp op, Value numKeys) {
    Value zero = index(b, loc, 0);
    Value position = op.getOffset();
    // Rows are positions unless the keys are a ring.
    Value origin = op.getSlopes() || op.getRelativeBias() ? position : Value();
    if (op.getMask() == MaskKind::bidirectional)
      return {{zero, numKeys, origin}};
    Value ownPosition =
        arith::AddIOp::create(b, loc, position, index(b, loc, 1));
    if (op.getMask() == MaskKind::causal)
      return {
          {zero, arith::MinUIOp::create(b, loc, ownPosition, numKeys), origin}};
    // Sliding window: positions [offset + 1 - n, offset + 1) with n =
    // min(offset + 1, W).
    Value seen = arith::MinUIOp::create(b, loc, ownPosition,
                                        index(b, loc, *op.getWindow()));
    Value oldest = arith::SubIOp::create(b, loc, ownPosition, seen);
    if (!op.getRing())
      return {{oldest, arith::MinUIOp::create(b, loc, ownPosition, numKeys),
               origin}};
    // Position p is slot p mod R: the run starts at the oldest position's
    // slot and wraps once at most (n <= W <= R).
    Value slots = index(b, loc, *op.getRing());
    Value start = arith::RemUIOp::create(b, loc, oldest, slots);
    Value beforeWrap = arith::MinUIOp::create(
        b, loc, seen, arith::SubIOp::create(b, loc, slots, start));
    Value afterWrap = arith::SubIOp::create(b, loc, seen, beforeWrap);
    // Slot start holds the oldest position, seen - 1 before the query's;
    // slot 0 of the second run the position beforeWrap after the oldest.
    Value firstOrigin, secondOrigin;
    if (op.getSlopes()) {
      Value back = arith::SubIOp::create(b, loc, seen, index(b, loc, 1));
      firstOrigin = arith::AddIOp::create(b, loc, start, back);
      secondOrigin = arith::SubIOp::create(b, loc, back, beforeWrap);
    }
    return {
        {start, arith::AddIOp::create(b, loc, start, beforeWrap), firstOrigin},
        {zero, afterWrap, secondOrigin}};
  }

  /// Folds keys [begin, end) into `state`: whole blocks unrolled where the
  /// kernel can, then the rest in partial blocks.
  static SoftmaxState walkRun(OpBuilder &b, Location loc, const Kernel &kernel,
                              Value begin, Value end, SoftmaxState state) {
    Value blockKeysValue = index(b, loc, kernel.blockKeys);
    Value partialStart = begin;
    if (kernel.canUnrollBlocks()) {
      // Folded when the run starts at key 0 (causal and bidirectional).
      Value length = b.createOrFold<arith::SubIOp>(loc, end, begin);
      Value whole = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, length, blockKeysValue),
          blockKeysValue);
      partialStart = b.createOrFold<arith::AddIOp>(loc, begin, whole);
      state = kernel.wholeBlocks(b, loc, begin, partialStart, state);
    }
    return walkBlocks(
        b, loc, partialStart, end, blockKeysValue, state,
        [&](OpBuilder &nb, Location nloc, Value first, SoftmaxState current) {
          Value count = arith::MinUIOp::create(
              nb, nloc, blockKeysValue,
              arith::SubIOp::create(nb, nloc, end, first));
          return kernel.partialBlock(nb, nloc, first, count, current);
        });
  }

  static Value multiply(OpBuilder &b, Location loc, Value value,
                        int64_t factor) {
    return arith::MulIOp::create(b, loc, value, index(b, loc, factor));
  }

  static Value splat(OpBuilder &b, Location loc, VectorType type,
                     double value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(value)));
  }

  int64_t blockKeys;
};

/// Tiles `op` into one `scf.forall` over (query row, head) with a kernel of
/// one row and one head per iteration.
FailureOr<AttentionKernelOp> tileRowsAndHeads(RewriterBase &rewriter,
                                              AttentionKernelOp op) {
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setTileSizes(getAsIndexOpFoldResult(op.getContext(), {1, 1}));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), tiling);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  return cast<AttentionKernelOp>(tiled->tiledOps.back());
}

struct TfmCpuTileAttention
    : mlir::tfm::impl::TfmCpuTileAttentionBase<TfmCpuTileAttention> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<AttentionKernelOp> kernels;
    getOperation()->walk([&](AttentionKernelOp op) { kernels.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (AttentionKernelOp op : kernels) {
      cpu::AttentionConfigAttr config = cpu::getAttentionConfig(op);
      if (!config) {
        op.emitOpError() << "has no kernel configuration "
                            "(tfm-cpu-select-kernel-config chooses its blocks "
                            "of keys)";
        return signalPassFailure();
      }
      FailureOr<AttentionKernelOp> tile = tileRowsAndHeads(rewriter, op);
      if (failed(tile))
        return signalPassFailure();
      Operation *loop = (*tile)->getParentOp();
      FlashAttentionTile flash(config.getBlockKeys());
      if (failed(flash.rewrite(rewriter, *tile)))
        return signalPassFailure();
      // The kernel's loops carry its configuration: the cache prefetch of
      // its block loops reads it after bufferization.
      cpu::setKernelConfig(loop, config);
      loop->walk(
          [&](scf::ForOp block) { cpu::setKernelConfig(block, config); });
    }
  }
};

} // namespace
