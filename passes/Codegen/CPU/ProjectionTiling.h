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

/// Tiles `op` with `sizes` into loops of `loopType` and replaces it;
/// returns the tiled op. The loops carry `op`'s kernel configuration.
FailureOr<linalg::GenericOp> tile(RewriterBase &rewriter, linalg::GenericOp op,
                                  ArrayRef<int64_t> sizes,
                                  scf::SCFTilingOptions::LoopType loopType);

/// Tiles one task's projection (all rows, a group of panels) into
/// register tiles over the input features and vectorises the tile.
LogicalResult buildRegisterTile(RewriterBase &rewriter, linalg::GenericOp task,
                                int64_t rows);

/// Vectorises `op` where it is and replaces it.
LogicalResult vectorizeInPlace(RewriterBase &rewriter, linalg::LinalgOp op);

/// Sets `config` on each of `loops` (the loops of one kernel).
void setLoopsConfig(ArrayRef<LoopLikeOpInterface> loops, Attribute config);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_PROJECTIONTILING_H
