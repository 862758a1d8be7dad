//===- ProjectionTiling.h - Tiles of projection micro-kernels --*- C++ -*-===//
//
// Shared by tfm-cpu-tile-projections' kernels and epilogues: the tile sizes
// a kernel's accumulator budget gives a projection, and the tiling steps
// (TilingInterface, then linalg vectorisation) that make its tiles. The
// loops a tiling creates carry the kernel configuration of the op it
// tiles.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_PROJECTIONTILING_H
#define TFMC_PASSES_CODEGEN_CPU_PROJECTIONTILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm::cpu {

struct TileSizes {
  int64_t panels; ///< output panels per micro-kernel (and per thread task)
  int64_t rows;   ///< input rows per micro-kernel
};

/// Fills up to `accumulators` vectors of W lanes: rows first (each weight
/// load then feeds that many FMAs), then panels, keeping at least
/// `parallelTiles` panel groups for the threads to share.
TileSizes chooseTileSizes(int64_t numPanels, int64_t numRows,
                          int64_t accumulators, int64_t parallelTiles);

/// What a projection kernel's tiles may take: its configuration's
/// accumulators, the panel groups left to share between threads, and a
/// k-quant GEMV's panels per tile (0: as many as the accumulators allow).
struct TileBudget {
  int64_t accumulators;
  int64_t parallelTiles;
  int64_t kquantGemvPanels;
};

/// The tile sizes of `projection` (a panel projection, or the scaled sum of
/// a block-quantized one) over `numPanels` of its panels: chooseTileSizes,
/// except that a k-quant GEMV (one row: a decode step) takes at most
/// `kquantGemvPanels` panels a tile. Its panels are four arrays (quants,
/// scales, minimums, super-block factors) streamed side by side, and fewer
/// panels per tile decoded faster (bench/README.md, "Measured defaults"),
/// where Q4_0's did not; prefill's tiles of rows keep the accumulators'
/// panels.
TileSizes chooseProjectionTileSizes(linalg::GenericOp projection,
                                    int64_t numPanels, TileBudget budget);

/// Tiles `op` with `sizes` into loops of `loopType` and replaces it;
/// returns the tiled op. The loops carry `op`'s kernel configuration.
FailureOr<linalg::GenericOp> tile(RewriterBase &rewriter, linalg::GenericOp op,
                                  ArrayRef<int64_t> sizes,
                                  scf::SCFTilingOptions::LoopType loopType);

/// Tiles one task's projection (all rows, a group of panels) into
/// register tiles over the input features and vectorises the tile.
LogicalResult buildRegisterTile(RewriterBase &rewriter, linalg::GenericOp task,
                                int64_t rows);

/// A Q8_0 / Q4_0 / k-quant projection's scaled sum over blocks, tiled, with
/// its partial products (and their zero fill) fused into the tile.
struct BlockTile {
  linalg::GenericOp scaledSum;
  linalg::GenericOp partials;
};

/// Tiles `scaledSum` with `sizes` into loops of `loopType`, fusing its
/// partial products and their fill into the tile, and erases it.
FailureOr<BlockTile> tileWithPartials(RewriterBase &rewriter,
                                      linalg::GenericOp scaledSum,
                                      ArrayRef<int64_t> sizes,
                                      scf::SCFTilingOptions::LoopType loopType);

/// Tiles one task's block-quantized projection (its scaled sum over all
/// rows of a group of panels) into register tiles: `rows` rows step over
/// the blocks, and per block sum the products of their inputs with the
/// widened quants one quant step at a time into zeroed partial
/// accumulators, then add each partial accumulator times the block's
/// scales to the output accumulators. All accumulators stay in registers
/// (after subset hoisting), and the scales are applied once per block
/// instead of once per weight.
LogicalResult buildBlockRegisterTile(RewriterBase &rewriter,
                                     linalg::GenericOp taskScaledSum,
                                     int64_t rows);

/// Vectorises `op` where it is and replaces it.
LogicalResult vectorizeInPlace(RewriterBase &rewriter, linalg::LinalgOp op);

/// Sets `config` on each of `loops` (the loops of one kernel).
void setLoopsConfig(ArrayRef<LoopLikeOpInterface> loops, Attribute config);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_PROJECTIONTILING_H
