//===- TileAndDistribute.cpp - Kernels as block, warp and thread foralls --===//
//
// Applies each op's #tfm_gpu.kernel config through the TilingInterface:
// the op becomes an scf.forall over its block tiles (mapped to
// #gpu.block<x/y/z>, innermost tiled loop on x), whose body tiles the block
// tile again over warps or threads. Fills that initialise the op's output
// are fused at both levels, so that each warp or thread zeroes only what it
// accumulates into.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUTILEANDDISTRIBUTE
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Which ids a level of tiling maps its loops to.
enum class Level { Block, Warp, Thread };

/// Mapping attributes for `count` forall dimensions, the last one on x.
SmallVector<Attribute> mappingFor(MLIRContext *context, Level level,
                                  unsigned count) {
  static const gpu::MappingId ids[] = {
      gpu::MappingId::DimX, gpu::MappingId::DimY, gpu::MappingId::DimZ};
  SmallVector<Attribute> mapping;
  for (unsigned i = 0; i < count; ++i) {
    gpu::MappingId id = ids[count - 1 - i];
    switch (level) {
    case Level::Block:
      mapping.push_back(gpu::GPUBlockMappingAttr::get(context, id));
      break;
    case Level::Warp:
      mapping.push_back(gpu::GPUWarpMappingAttr::get(context, id));
      break;
    case Level::Thread:
      mapping.push_back(gpu::GPUThreadMappingAttr::get(context, id));
      break;
    }
  }
  return mapping;
}

/// Tiles `op` by `sizes` (0: untiled) into an scf.forall mapped to `level`,
/// fusing the fills of its outputs; returns the tiled op.
FailureOr<TilingInterface> tileLevel(RewriterBase &rewriter, TilingInterface op,
                                     ArrayRef<int64_t> sizes, Level level) {
  unsigned tiled = llvm::count_if(sizes, [](int64_t s) { return s != 0; });
  if (tiled == 0)
    return op;
  if (tiled > 3)
    return op->emitOpError("tiles more than three loops over GPU ids");
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  tiling.setMapping(mappingFor(op->getContext(), level, tiled));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // Only the fills of the op's outputs come along: other producers are
  // kernels of their own.
  options.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isa<linalg::FillOp>(producer.getOwner()))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, op, options);
  if (failed(result))
    return op->emitOpError("could not be tiled for the GPU");
  for (OpResult value : op->getResults())
    if (Value replacement = result->replacements.lookup(value))
      rewriter.replaceAllUsesWith(value, replacement);
  // The consumer's tile is the tiled op of the same kind as `op`.
  TilingInterface tiledOp;
  for (Operation *candidate : result->tiledAndFusedOps)
    if (candidate->getName() == op->getName() &&
        !isa<linalg::FillOp>(op) == !isa<linalg::FillOp>(candidate) &&
        getKernelConfig(candidate))
      tiledOp = cast<TilingInterface>(candidate);
  if (!tiledOp)
    return op->emitOpError("lost its tile while tiling for the GPU");
  if (op->use_empty())
    rewriter.eraseOp(op);
  // Ids run from 0 in steps of 1: the loop counts tiles, not elements
  // (what the mapping to GPU ids expects).
  auto forall = cast<scf::ForallOp>(result->loops.front().getOperation());
  rewriter.setInsertionPoint(forall);
  if (failed(normalizeForallOp(rewriter, forall)))
    return op->emitOpError("could not normalise its GPU loop");
  return tiledOp;
}

/// The sizes of an inner level: a loop that the inner level does not
/// split further (its tile equals the block's) is not tiled again.
SmallVector<int64_t> innerSizes(ArrayRef<int64_t> inner,
                                ArrayRef<int64_t> outer,
                                ArrayRef<int64_t> ranges) {
  SmallVector<int64_t> sizes;
  for (auto [i, size] : llvm::enumerate(inner)) {
    int64_t blockTile = outer[i] == 0 ? ranges[i] : outer[i];
    sizes.push_back(size == blockTile ? 0 : size);
  }
  return sizes;
}

/// Every kernel is a forall at each of its levels, even of one iteration:
/// when `sizes` tile nothing, the first parallel loop gets one tile of
/// its whole extent `extents[i]` (the block's tile of it, or its range).
void forceOneTile(SmallVectorImpl<int64_t> &sizes, ArrayRef<int64_t> extents,
                  ArrayRef<utils::IteratorType> iterators) {
  if (llvm::any_of(sizes, [](int64_t s) { return s != 0; }))
    return;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel) {
      sizes[i] = extents[i];
      return;
    }
}

/// Block tiles: a tile covering its whole loop needs no grid dimension.
SmallVector<int64_t> blockSizes(ArrayRef<int64_t> workgroup,
                                ArrayRef<int64_t> ranges) {
  SmallVector<int64_t> sizes;
  for (auto [size, range] : llvm::zip(workgroup, ranges))
    sizes.push_back(size == range ? 0 : size);
  return sizes;
}

LogicalResult distribute(RewriterBase &rewriter, TilingInterface op,
                         GpuKernelConfigAttr config) {
  SmallVector<int64_t> ranges;
  for (Range range : op.getIterationDomain(rewriter)) {
    std::optional<int64_t> size = getConstantIntValue(range.size);
    if (!size)
      return op->emitOpError("has a dynamic iteration domain");
    ranges.push_back(*size);
  }
  if (config.getWorkgroup().size() != ranges.size())
    return op->emitOpError("has ")
           << ranges.size() << " loops but its kernel config tiles "
           << config.getWorkgroup().size();
  SmallVector<utils::IteratorType> iterators = op.getLoopIteratorTypes();
  SmallVector<int64_t> workgroup = blockSizes(config.getWorkgroup(), ranges);
  forceOneTile(workgroup, ranges, iterators);
  FailureOr<TilingInterface> blockTile =
      tileLevel(rewriter, op, workgroup, Level::Block);
  if (failed(blockTile))
    return failure();
  // The block forall carries the config: its launch takes the block size.
  setKernelConfig(blockTile->getOperation()->getParentOfType<scf::ForallOp>(),
                  config);
  bool warps = !config.getSubgroup().empty();
  ArrayRef<int64_t> inner = warps ? config.getSubgroup() : config.getThread();
  if (inner.empty())
    return op->emitOpError("has a kernel config without warp or thread tiles");
  SmallVector<int64_t> blockTileSizes;
  for (auto [size, range] : llvm::zip(config.getWorkgroup(), ranges))
    blockTileSizes.push_back(size == 0 ? range : size);
  SmallVector<int64_t> sizes = innerSizes(inner, config.getWorkgroup(), ranges);
  forceOneTile(sizes, blockTileSizes, iterators);
  return tileLevel(rewriter, *blockTile, sizes,
                   warps ? Level::Warp : Level::Thread);
}

struct TfmGpuTileAndDistribute
    : mlir::tfm::impl::TfmGpuTileAndDistributeBase<TfmGpuTileAndDistribute> {
  void runOnOperation() override {
    SmallVector<TilingInterface> kernels;
    getOperation()->walk([&](TilingInterface op) {
      GpuKernelConfigAttr config = getKernelConfig(op);
      if (!config || op->getParentOfType<scf::ForallOp>())
        return;
      if (config.getKind() == GpuKernelKind::attention_decode ||
          config.getKind() == GpuKernelKind::attention_prefill)
        return;
      kernels.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (TilingInterface op : kernels)
      if (failed(distribute(rewriter, op, getKernelConfig(op))))
        return signalPassFailure();
  }
};

} // namespace
