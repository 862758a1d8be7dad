//===- PrefetchCacheRows.cpp - Prefetch cache rows attention reads next ---===//
//
// Flash attention walks a head's cached keys and values in blocks of rows:
// an `scf.for` over positions p that reads rows `p + c` of a view of the
// cache, for a few constant offsets c. A thread streams one head's keys and
// values at a time, two streams where a decode GEMV reads eight panels, and
// each block of 16 rows of 64 f32 features is one 4 KiB page of each: the
// hardware prefetcher, which stops at page boundaries, starts over on every
// block, and profiles showed the first value row of each block waiting on
// memory. Here each block loop prefetches, at position p, the rows it will
// read `distance` positions later.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUPREFETCHCACHEROWS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

constexpr int64_t kCacheLineBytes = 64;

/// The constant c when `index` is `iv + c` (c = 0 for `iv` itself).
std::optional<int64_t> offsetFromInductionVar(Value index, Value iv) {
  if (index == iv)
    return 0;
  auto add = index.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())})
    if (lhs == iv)
      if (std::optional<int64_t> offset = getConstantIntValue(rhs))
        return offset;
  return std::nullopt;
}

/// The rows `p + c`, c in [minOffset, maxOffset], that a block loop reads
/// from `source[leadingIndices..., row, :]` (one head's keys or values).
struct RowBlock {
  Value source;
  SmallVector<Value> leadingIndices;
  int64_t minOffset;
  int64_t maxOffset;
};

/// The row block of `read`: a 1-D read along the last dimension of a memref
/// `[..., rows, features]` whose row count is dynamic (the cache up to the
/// current position), at row `p + c`, with leading indices that `loop` does
/// not change.
FailureOr<RowBlock> matchRowRead(vector::TransferReadOp read, scf::ForOp loop) {
  auto type = dyn_cast<MemRefType>(read.getBase().getType());
  if (!type || type.getRank() < 2 || read.getVectorType().getRank() != 1 ||
      !read.getPermutationMap().isMinorIdentity())
    return failure();
  int64_t rowDim = type.getRank() - 2;
  if (!type.isDynamicDim(rowDim) || type.isDynamicDim(rowDim + 1))
    return failure();
  ValueRange indices = read.getIndices();
  std::optional<int64_t> offset =
      offsetFromInductionVar(indices[rowDim], loop.getInductionVar());
  if (!offset)
    return failure();
  SmallVector<Value> leading(indices.take_front(rowDim));
  if (!llvm::all_of(leading, [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return failure();
  return RowBlock{read.getBase(), std::move(leading), *offset, *offset};
}

/// The row blocks that `loop`'s body reads, one per memref and leading
/// indices; none when the loop's step is not a constant.
SmallVector<RowBlock> matchBlockLoop(scf::ForOp loop) {
  SmallVector<RowBlock> blocks;
  if (!getConstantIntValue(loop.getStep()))
    return blocks;
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    FailureOr<RowBlock> row = matchRowRead(read, loop);
    if (failed(row))
      continue;
    auto same = llvm::find_if(blocks, [&](const RowBlock &block) {
      return block.source == row->source &&
             block.leadingIndices == row->leadingIndices;
    });
    if (same == blocks.end()) {
      blocks.push_back(*row);
      continue;
    }
    same->minOffset = std::min(same->minOffset, row->minOffset);
    same->maxOffset = std::max(same->maxOffset, row->maxOffset);
  }
  return blocks;
}

/// Makes `loop` prefetch, at position p, each cache line of rows
/// `p + c + distance` of every block, clamped to the last row.
/// Non-temporal: each line is read once, by this thread, a block later.
void prefetchRowsAhead(RewriterBase &rewriter, scf::ForOp loop,
                       ArrayRef<RowBlock> blocks, int64_t distance) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lastRows;
  for (const RowBlock &block : blocks) {
    int64_t rowDim = cast<MemRefType>(block.source.getType()).getRank() - 2;
    Value rows = memref::DimOp::create(rewriter, loc, block.source, rowDim);
    lastRows.push_back(arith::SubIOp::create(rewriter, loc, rows, one));
  }
  rewriter.setInsertionPointToStart(loop.getBody());
  for (auto [block, lastRow] : llvm::zip_equal(blocks, lastRows)) {
    auto type = cast<MemRefType>(block.source.getType());
    int64_t features = type.getDimSize(type.getRank() - 1);
    int64_t lineElements = std::max<int64_t>(
        1, kCacheLineBytes * 8 / type.getElementTypeBitWidth());
    for (int64_t offset = block.minOffset; offset <= block.maxOffset;
         ++offset) {
      Value row = arith::AddIOp::create(
          rewriter, loc, loop.getInductionVar(),
          arith::ConstantIndexOp::create(rewriter, loc, offset + distance));
      row = arith::MinUIOp::create(rewriter, loc, row, lastRow);
      for (int64_t column = 0; column < features; column += lineElements) {
        SmallVector<Value> indices(block.leadingIndices);
        indices.push_back(row);
        indices.push_back(
            arith::ConstantIndexOp::create(rewriter, loc, column));
        memref::PrefetchOp::create(rewriter, loc, block.source, indices,
                                   /*isWrite=*/false, /*localityHint=*/0,
                                   /*isDataCache=*/true);
      }
    }
  }
}

struct TfmCpuPrefetchCacheRows
    : mlir::tfm::impl::TfmCpuPrefetchCacheRowsBase<TfmCpuPrefetchCacheRows> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::tuple<scf::ForOp, SmallVector<RowBlock>, int64_t>> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      // The block loops of attention kernels whose configuration asks for
      // a prefetch.
      mlir::tfm::cpu::AttentionConfigAttr config =
          mlir::tfm::cpu::getEnclosingAttentionConfig(loop);
      if (!config || config.getCachePrefetch() == 0)
        return;
      SmallVector<RowBlock> blocks = matchBlockLoop(loop);
      if (!blocks.empty())
        loops.emplace_back(loop, std::move(blocks), config.getCachePrefetch());
    });
    IRRewriter rewriter(&getContext());
    for (auto &[loop, blocks, distance] : loops)
      prefetchRowsAhead(rewriter, loop, blocks, distance);
  }
};

} // namespace
