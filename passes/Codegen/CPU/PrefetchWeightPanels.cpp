//===- PrefetchWeightPanels.cpp - Overlap panel loads with GEMM passes ----===//
//
// A prefill micro-kernel (tfm-cpu-tile-projections) sweeps its weight tile once
// per group of input rows. The first sweep streams the tile from DRAM and
// is latency-bound: each FMA needs a line the hardware prefetcher has not
// fetched yet. The later sweeps hit L2. Peeling the first row group and
// prefetching the next tile's panels from it (one line per panel and input
// feature, as the tile itself is read) turns every sweep into an L2 sweep:
// the DRAM stream runs one tile ahead, under the FMAs.
//
// A decode GEMV sweeps its tile once: a pure stream, left to the hardware
// prefetcher unless the function streams enough weights that they come from
// DRAM every step (stream-min-bytes); then each feature k also prefetches
// feature k + stream_distance of its panels, as the kernel's configuration
// says (tfm-cpu-select-kernel-config): non-temporal on AMD's Zen cores,
// where it was measured; into L1 (T0) elsewhere, because on Intel's Xeons a
// non-temporal prefetch fills L1 alone and stories110M's f32 decode ran
// 2.4x slower with it (30 tokens/s against 74 with T0 or none).
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUPREFETCHWEIGHTPANELS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// A micro-kernel whose reduction loop reads a tile of whole weight panels
/// (`panels` = memref<P x K x W>, the tile `[offset, offset + tileSize)`),
/// inside a loop over row groups that sweeps the tile several times.
struct PanelSweep {
  scf::ForOp rowLoop;
  scf::ForOp reductionLoop;
  Value panels;
  OpFoldResult offset;
  int64_t tileSize;
};

/// The tile of whole panels that `view` (a per-feature slice
/// `tile[0, k, 0]` with `k` the reduction loop's induction variable) reads,
/// or failure.
FailureOr<memref::SubViewOp> wholePanelTile(memref::SubViewOp view,
                                            scf::ForOp reductionLoop) {
  auto tile = view.getSource().getDefiningOp<memref::SubViewOp>();
  if (!tile || view.getSourceType().getRank() != 3 ||
      tile.getSourceType().getRank() != 3 ||
      !tile.getSourceType().hasStaticShape() || !tile.hasUnitStride())
    return failure();
  SmallVector<OpFoldResult> viewOffsets = view.getMixedOffsets();
  if (!isZeroInteger(viewOffsets[0]) || !isZeroInteger(viewOffsets[2]) ||
      llvm::dyn_cast_if_present<Value>(viewOffsets[1]) !=
          reductionLoop.getInductionVar())
    return failure();
  // The tile spans whole panels: every input feature and lane.
  ArrayRef<int64_t> shape = tile.getSourceType().getShape();
  SmallVector<OpFoldResult> offsets = tile.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = tile.getMixedSizes();
  if (!isZeroInteger(offsets[1]) || !isZeroInteger(offsets[2]) ||
      getConstantIntValue(sizes[1]) != shape[1] ||
      getConstantIntValue(sizes[2]) != shape[2] ||
      !getConstantIntValue(sizes[0]))
    return failure();
  return tile;
}

/// Recognises `reductionLoop` as a panel sweep repeated by its parent loop.
FailureOr<PanelSweep> matchPanelSweep(scf::ForOp reductionLoop) {
  auto rowLoop = dyn_cast<scf::ForOp>(reductionLoop->getParentOp());
  if (!rowLoop || rowLoop.getNumResults() != 0)
    return failure();
  std::optional<APInt> trips = rowLoop.getStaticTripCount();
  // One sweep has nothing to overlap with: decode's GEMVs are pure streams.
  if (!trips || trips->ult(2))
    return failure();
  for (Operation &op : reductionLoop.getBody()->without_terminator()) {
    auto view = dyn_cast<memref::SubViewOp>(op);
    if (!view)
      continue;
    FailureOr<memref::SubViewOp> tile = wholePanelTile(view, reductionLoop);
    // The tile must be the same for every row group.
    if (failed(tile) || rowLoop->isAncestor(*tile))
      continue;
    return PanelSweep{rowLoop, reductionLoop, tile->getSource(),
                      tile->getMixedOffsets()[0],
                      *getConstantIntValue(tile->getMixedSizes()[0])};
  }
  return failure();
}

/// Peels the first row group of `sweep` and prefetches, from its reduction
/// loop, feature k of each panel of the next tile (clamped to the last
/// panel: the last tile prefetches itself, which is harmless).
void prefetchNextTile(RewriterBase &rewriter, const PanelSweep &sweep) {
  scf::ForOp rowLoop = sweep.rowLoop;
  Location loc = rowLoop.getLoc();
  rewriter.setInsertionPoint(rowLoop);
  Value secondStart = arith::AddIOp::create(
      rewriter, loc, rowLoop.getLowerBound(), rowLoop.getStep());

  // The next tile's panels, computed once per tile.
  int64_t numPanels = cast<MemRefType>(sweep.panels.getType()).getDimSize(0);
  Value lastPanel =
      arith::ConstantIndexOp::create(rewriter, loc, numPanels - 1);
  Value offset = getValueOrCreateConstantIndexOp(rewriter, loc, sweep.offset);
  SmallVector<Value> nextPanels;
  for (int64_t i = 0; i < sweep.tileSize; ++i) {
    Value next = arith::AddIOp::create(
        rewriter, loc, offset,
        arith::ConstantIndexOp::create(rewriter, loc, sweep.tileSize + i));
    nextPanels.push_back(
        arith::MinUIOp::create(rewriter, loc, next, lastPanel));
  }
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);

  IRMapping mapping;
  auto first = cast<scf::ForOp>(rewriter.clone(*rowLoop, mapping));
  rewriter.modifyOpInPlace(
      first, [&] { first.getUpperBoundMutable().assign(secondStart); });
  rewriter.modifyOpInPlace(
      rowLoop, [&] { rowLoop.getLowerBoundMutable().assign(secondStart); });

  scf::ForOp original = sweep.reductionLoop;
  auto reduction = cast<scf::ForOp>(mapping.lookup(original.getOperation()));
  rewriter.setInsertionPointToStart(reduction.getBody());
  // Locality 2 (L2 and outward): the line is consumed one tile later,
  // after this tile's own lines went through L1.
  for (Value panel : nextPanels)
    memref::PrefetchOp::create(
        rewriter, loc, sweep.panels,
        ValueRange{panel, reduction.getInductionVar(), zero},
        /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
}

/// A kernel that reads its tile of whole weight panels once: a reduction
/// loop over input features that no loop over several row groups repeats
/// (a decode GEMV).
struct PanelStream {
  scf::ForOp reductionLoop;
  memref::SubViewOp tile;
  /// How far ahead and how it prefetches: its kernel's configuration.
  mlir::tfm::cpu::ProjectionConfigAttr config;
};

FailureOr<PanelStream> matchPanelStream(scf::ForOp reductionLoop) {
  auto rowLoop = dyn_cast<scf::ForOp>(reductionLoop->getParentOp());
  if (rowLoop) {
    std::optional<APInt> trips = rowLoop.getStaticTripCount();
    if (!trips || trips->ugt(1))
      return failure();
  }
  for (Operation &op : reductionLoop.getBody()->without_terminator())
    if (auto view = dyn_cast<memref::SubViewOp>(op))
      if (FailureOr<memref::SubViewOp> tile =
              wholePanelTile(view, reductionLoop);
          succeeded(tile))
        return PanelStream{
            reductionLoop, *tile,
            mlir::tfm::cpu::getEnclosingProjectionConfig(reductionLoop)};
  return failure();
}

/// Makes the reduction loop of `stream` prefetch, at input feature k,
/// feature `k + distance` (clamped to the last) of each panel of its tile,
/// its configuration's `stream_distance`, non-temporal (each line is read
/// once, by this thread, a few iterations later; +10% llama-110m decode on
/// AMD Zen) when it says `non_temporal`, else T0 (see the file comment).
void prefetchAhead(RewriterBase &rewriter, PanelStream stream) {
  int64_t distance = stream.config.getStreamDistance();
  uint32_t locality = stream.config.getNonTemporal() ? 0 : 3;
  scf::ForOp loop = stream.reductionLoop;
  Location loc = loop.getLoc();
  Value panels = stream.tile.getSource();
  int64_t features = cast<MemRefType>(panels.getType()).getDimSize(1);
  int64_t tileSize = *getConstantIntValue(stream.tile.getMixedSizes()[0]);
  rewriter.setInsertionPoint(loop);
  Value offset = getValueOrCreateConstantIndexOp(
      rewriter, loc, stream.tile.getMixedOffsets()[0]);
  SmallVector<Value> tilePanels;
  for (int64_t i = 0; i < tileSize; ++i)
    tilePanels.push_back(arith::AddIOp::create(
        rewriter, loc, offset,
        arith::ConstantIndexOp::create(rewriter, loc, i)));
  Value lastFeature =
      arith::ConstantIndexOp::create(rewriter, loc, features - 1);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value ahead = arith::AddIOp::create(
      rewriter, loc, loop.getInductionVar(),
      arith::ConstantIndexOp::create(rewriter, loc, distance));
  ahead = arith::MinUIOp::create(rewriter, loc, ahead, lastFeature);
  for (Value panel : tilePanels)
    memref::PrefetchOp::create(rewriter, loc, panels,
                               ValueRange{panel, ahead, zero},
                               /*isWrite=*/false, locality,
                               /*isDataCache=*/true);
}

/// Bytes of the distinct panel matrices that `streams` read.
int64_t streamedBytes(ArrayRef<PanelStream> streams) {
  llvm::SmallPtrSet<void *, 16> seen;
  int64_t bytes = 0;
  for (PanelStream stream : streams) {
    Value panels = stream.tile.getSource();
    if (!seen.insert(panels.getAsOpaquePointer()).second)
      continue;
    auto type = cast<MemRefType>(panels.getType());
    bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
  return bytes;
}

struct TfmCpuPrefetchWeightPanels
    : mlir::tfm::impl::TfmCpuPrefetchWeightPanelsBase<
          TfmCpuPrefetchWeightPanels> {
  using Base::Base;

  void runOnOperation() override {
    if (streamMinBytes < 0) {
      getOperation()->emitError()
          << "tfm-cpu-prefetch-weight-panels: stream-min-bytes must not be "
             "negative";
      return signalPassFailure();
    }
    SmallVector<PanelSweep> sweeps;
    llvm::MapVector<Operation *, SmallVector<PanelStream>> streamsByFunction;
    getOperation()->walk([&](scf::ForOp loop) {
      // The kernels are the loops of configured projections.
      if (!mlir::tfm::cpu::getEnclosingProjectionConfig(loop))
        return;
      if (FailureOr<PanelSweep> sweep = matchPanelSweep(loop); succeeded(sweep))
        sweeps.push_back(*sweep);
      else if (FailureOr<PanelStream> stream = matchPanelStream(loop);
               succeeded(stream))
        streamsByFunction[loop->getParentOfType<FunctionOpInterface>()]
            .push_back(*stream);
    });
    IRRewriter rewriter(&getContext());
    for (const PanelSweep &sweep : sweeps)
      prefetchNextTile(rewriter, sweep);
    for (auto &[function, streams] : streamsByFunction)
      if (streamedBytes(streams) >= streamMinBytes)
        for (PanelStream stream : streams)
          if (stream.config.getStreamDistance() > 0)
            prefetchAhead(rewriter, stream);
  }
};

} // namespace
