//===- TileProjections.cpp - Register-blocked projection micro-kernels ----===//
//
// The panel projections written by the tfm.packed_linear lowering,
// `out[s, p, j] += x[s, k] * w[p, k, j]` over loops (p, s, k, j), become:
//
//   scf.forall over groups of output panels      (shared between threads)
//     scf.for over groups of rows                (prefill tokens)
//       accumulators = out tile                  (in registers)
//       scf.for k                                (input features)
//         accumulators += broadcast(x[s, k]) * w[p, k, 0:W]
//       out tile = accumulators
//
// through upstream tiling (TilingInterface), linalg vectorisation and
// loop-invariant subset hoisting. The k-loop body is one vector load of
// weights per panel and one FMA per accumulator, with the input element
// broadcast from memory: the register-blocked GEMM (prefill) and GEMV
// (decode) micro-kernels of a BLAS, generated.
//
// An elementwise op that alone reads a projection's columns (a bias, GELU,
// a residual add, or SwiGLU's `silu(gate) * up` over the two halves of a
// stacked gate/up GEMM, which is split into its halves) is rewritten over
// the panel layout and, tiled over output panels, pulls the projections
// into each task: the epilogue runs on each task's panels while they are in
// cache, on every thread.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmContracts.h"
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUTILEPROJECTIONS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Loop order of the panel projection: (panel, row, input feature, lane).
enum PanelLoop { kPanel = 0, kRow = 1, kFeature = 2, kLane = 3 };

/// Whether `op` is a static panel projection `out[s, p, j] += x[s, k] *
/// w[p, k, j]` over loops (p, s, k, j), or its form over bf16 pairs
/// (convert-tfm-to-linalg{bf16-inputs}): the i32 input pairs `x[s, k]` and
/// the panels' even and odd columns `w0[p, k, j]`, `w1[p, k, j]`.
bool isPanelProjection(linalg::GenericOp op) {
  int64_t numInputs = op.getNumDpsInputs();
  if ((numInputs != 2 && numInputs != 3) || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 4 || !op.hasPureTensorSemantics())
    return false;
  if (numInputs == 2 && !linalg::isaContractionOpInterface(op))
    return false;
  if (numInputs == 3 &&
      (!getElementTypeOrSelf(op.getDpsInputs()[0].getType()).isInteger(32) ||
       !getElementTypeOrSelf(op.getDpsInputs()[1].getType()).isBF16()))
    return false;
  MLIRContext *context = op.getContext();
  auto dims = [&](ArrayRef<unsigned> positions) {
    return AffineMap::getMultiDimIdentityMap(4, context)
        .getSubMap(SmallVector<unsigned>(positions));
  };
  SmallVector<AffineMap> expected = {dims({kRow, kFeature})};
  expected.append(numInputs - 1, dims({kPanel, kFeature, kLane}));
  expected.push_back(dims({kRow, kPanel, kLane}));
  SmallVector<utils::IteratorType> loops(4, utils::IteratorType::parallel);
  loops[kFeature] = utils::IteratorType::reduction;
  if (op.getIndexingMapsArray() != expected ||
      op.getIteratorTypesArray() != loops)
    return false;
  return llvm::all_of(op.getStaticLoopRanges(), [](int64_t extent) {
    return !ShapedType::isDynamic(extent);
  });
}

/// Whether `op` is the per-block dot product of block-quantized panels that
/// the tfm.quantized_linear lowering writes: loops (panel, row, block,
/// quant, lane) into `partial[row, panel, block, lane]`, i8 quants (or
/// q8_0x4's i32 quads) among the inputs, static extents.
bool isBlockPartialProduct(linalg::GenericOp op) {
  // (panel, row, block, [half,] quant, lane): the Q4_0 partials over int8
  // inputs keep each half block's sum apart (16-bit sums of 8 steps).
  unsigned loops = op.getNumLoops();
  if (op.getNumDpsInits() != 1 || (loops != 5 && loops != 6) ||
      !op.hasPureTensorSemantics())
    return false;
  using utils::IteratorType;
  SmallVector<IteratorType> expected(loops, IteratorType::parallel);
  expected[loops - 2] = IteratorType::reduction;
  if (op.getIteratorTypesArray() != expected)
    return false;
  SmallVector<int64_t> outputDims = {1, 0, 2};
  if (loops == 6)
    outputDims.push_back(3);
  outputDims.push_back(loops - 1);
  AffineMap output = AffineMap::getMultiDimIdentityMap(loops, op.getContext())
                         .getSubMap(llvm::to_vector_of<unsigned>(outputDims));
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != output)
    return false;
  if (llvm::none_of(op.getDpsInputs(), [](Value input) {
        Type element = getElementTypeOrSelf(input.getType());
        return element.isInteger(8) || element.isInteger(32);
      }))
    return false;
  return llvm::all_of(op.getStaticLoopRanges(), [](int64_t extent) {
    return !ShapedType::isDynamic(extent);
  });
}

/// The per-block partial products that `op` scales and sums over blocks,
/// loops (panel, row, block, lane) into the output `[row, panel, lane]`,
/// when `op` is the second half of a Q8_0 / Q4_0 / kquant projection and
/// the only reader of its partial products; null otherwise. Its inputs are
/// the partial products, the scales `[panel, block, lane]`, for kquant the
/// minimums (the same shape), and for Q4_0 and kquant the per-row,
/// per-block input sums `[row, block]`. Q4_0 over int8 inputs has loops
/// (panel, row, block, half, lane) and, per row and block, the offsets and
/// the inputs' scales.
linalg::GenericOp blockPartialsOfScaledSum(linalg::GenericOp op) {
  int64_t numInputs = op.getNumDpsInputs();
  unsigned loops = op.getNumLoops();
  if (numInputs < 2 || numInputs > 4 || op.getNumDpsInits() != 1 ||
      (loops != 4 && loops != 5) || !op.hasPureTensorSemantics())
    return nullptr;
  using utils::IteratorType;
  SmallVector<IteratorType> expected(loops, IteratorType::reduction);
  expected[0] = expected[1] = expected[loops - 1] = IteratorType::parallel;
  if (op.getIteratorTypesArray() != expected)
    return nullptr;
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(loops, op.getContext());
  unsigned lane = loops - 1;
  AffineMap perPanelBlock = identity.getSubMap({0, 2, lane});
  AffineMap perRowBlock = identity.getSubMap({1, 2});
  SmallVector<unsigned> partialDims = {1, 0, 2};
  if (loops == 5)
    partialDims.push_back(3);
  partialDims.push_back(lane);
  SmallVector<AffineMap> maps = {identity.getSubMap(partialDims),
                                 perPanelBlock};
  // Of four inputs the third is kquant's minimums (per panel and block) or
  // the Q4_0 offsets of int8 inputs (per row and block, as the fourth, their
  // scales, is).
  if (numInputs == 4) {
    AffineMap third = op.getIndexingMapsArray()[2] == perRowBlock
                          ? perRowBlock
                          : perPanelBlock;
    maps.push_back(third);
  }
  if (numInputs >= 3)
    maps.push_back(perRowBlock);
  maps.push_back(identity.getSubMap({1, 0, lane}));
  if (op.getIndexingMapsArray() != maps)
    return nullptr;
  auto partials = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!partials || !partials->hasOneUse() || !isBlockPartialProduct(partials))
    return nullptr;
  return partials;
}

/// The largest divisor of `extent` that is at most `limit` (at least 1).
int64_t largestDivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t candidate = std::min(extent, limit); candidate > 1; --candidate)
    if (extent % candidate == 0)
      return candidate;
  return 1;
}

struct TileSizes {
  int64_t panels; ///< output panels per micro-kernel (and per thread task)
  int64_t rows;   ///< input rows per micro-kernel
};

/// Fills up to `accumulators` vectors of W lanes: rows first (each weight
/// load then feeds that many FMAs), then panels, keeping at least
/// `parallelTiles` panel groups for the threads to share.
TileSizes chooseTileSizes(int64_t numPanels, int64_t numRows,
                          int64_t accumulators, int64_t parallelTiles) {
  TileSizes sizes;
  sizes.rows = largestDivisorAtMost(numRows, accumulators);
  int64_t panelLimit = std::max<int64_t>(1, accumulators / sizes.rows);
  panelLimit =
      std::min(panelLimit, std::max<int64_t>(1, numPanels / parallelTiles));
  sizes.panels = largestDivisorAtMost(numPanels, panelLimit);
  return sizes;
}

FailureOr<linalg::GenericOp> tile(RewriterBase &rewriter, linalg::GenericOp op,
                                  ArrayRef<int64_t> sizes,
                                  scf::SCFTilingOptions::LoopType loopType) {
  scf::SCFTilingOptions options;
  options.setLoopType(loopType);
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  return cast<linalg::GenericOp>(tiled->tiledOps.back());
}

/// Tiles one task's projection (all rows, a group of panels) into
/// register tiles over the input features and vectorises the tile.
LogicalResult buildRegisterTile(RewriterBase &rewriter, linalg::GenericOp task,
                                int64_t rows) {
  SmallVector<int64_t> sizes = {0, rows, 1, 0};
  FailureOr<linalg::GenericOp> kernel =
      tile(rewriter, task, sizes, scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(kernel))
    return task.emitOpError("could not be tiled into register tiles");
  rewriter.setInsertionPoint(*kernel);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, *kernel);
  if (failed(vectorized))
    return task.emitOpError("register tile could not be vectorised");
  rewriter.replaceOp(*kernel, vectorized->replacements);
  return success();
}

/// Tiles `op` into micro-kernel tiles and vectorises the innermost one.
LogicalResult buildMicroKernel(RewriterBase &rewriter, linalg::GenericOp op,
                               int64_t accumulators, int64_t parallelTiles) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  TileSizes sizes = chooseTileSizes(extents[kPanel], extents[kRow],
                                    accumulators, parallelTiles);
  SmallVector<int64_t> taskSizes(op.getNumLoops(), 0);
  taskSizes[kPanel] = sizes.panels;
  FailureOr<linalg::GenericOp> task =
      tile(rewriter, op, taskSizes, scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(task))
    return op.emitOpError("could not be tiled over output panels");
  return buildRegisterTile(rewriter, *task, sizes.rows);
}

/// A Q8_0 / Q4_0 projection's scaled sum over blocks tiled with `sizes`,
/// with its partial products (and their zero fill) fused into the tile.
struct BlockTile {
  linalg::GenericOp scaledSum;
  linalg::GenericOp partials;
};

FailureOr<BlockTile>
tileWithPartials(RewriterBase &rewriter, linalg::GenericOp scaledSum,
                 ArrayRef<int64_t> sizes,
                 scf::SCFTilingOptions::LoopType loopType) {
  linalg::GenericOp partials = blockPartialsOfScaledSum(scaledSum);
  Value partialsInit = partials.getDpsInitOperand(0)->get();
  auto partialsFill = partialsInit.getDefiningOp<linalg::FillOp>();
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(loopType);
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *op = producer.getOwner();
        if (op == partials.getOperation() || op == partialsFill.getOperation())
          return scf::SCFTileAndFuseOptions::ControlFnResult{false};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(scaledSum);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(scaledSum.getOperation()), options);
  if (failed(fused))
    return failure();
  rewriter.replaceAllUsesWith(
      scaledSum->getResult(0),
      fused->replacements.lookup(scaledSum->getResult(0)));
  BlockTile tile;
  for (Operation *op : fused->tiledAndFusedOps) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      continue;
    if (isBlockPartialProduct(generic))
      tile.partials = generic;
    else if (generic->getParentOp() != scaledSum->getParentOp())
      tile.scaledSum = generic;
  }
  if (!tile.partials || !tile.scaledSum)
    return failure();
  // The untiled partials and their fill are dead now (the slices that
  // fusion replaced still read them until the cleanup below erases both).
  rewriter.eraseOp(scaledSum);
  return tile;
}

LogicalResult vectorizeInPlace(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (failed(vectorized))
    return failure();
  rewriter.replaceOp(op, vectorized->replacements);
  return success();
}

/// The micro-kernel of a Q8_0 / Q4_0 projection: threads share groups of
/// output panels; a register tile of rows steps over the blocks, and per
/// block sums the products of its inputs with the widened quants one quant
/// step at a time into zeroed partial accumulators, then adds each partial
/// accumulator times the block's scales to the output accumulators. All
/// accumulators stay in registers (after subset hoisting), and the scales
/// are applied once per block instead of once per weight.
LogicalResult buildBlockKernel(RewriterBase &rewriter,
                               linalg::GenericOp scaledSum,
                               int64_t accumulators, int64_t parallelTiles) {
  SmallVector<int64_t> extents = scaledSum.getStaticLoopRanges();
  // The partial accumulators take the registers of a float projection's
  // accumulators: the output accumulators are touched once per block, so
  // the compiler may keep them in memory without slowing the quant loop.
  TileSizes sizes = chooseTileSizes(extents[kPanel], extents[kRow],
                                    accumulators, parallelTiles);
  unsigned loops = scaledSum.getNumLoops();
  SmallVector<int64_t> taskSizes(loops, 0), kernelSizes(loops, 0);
  taskSizes[kPanel] = sizes.panels;
  kernelSizes[kRow] = sizes.rows;
  kernelSizes[2] = 1; // one block
  if (loops == 5)
    kernelSizes[3] = 1; // one half block: its sum scaled without a reduction
  FailureOr<BlockTile> task =
      tileWithPartials(rewriter, scaledSum, taskSizes,
                       scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(task))
    return scaledSum.emitOpError("could not be tiled over output panels");
  // Tiling replaced (and erased) `scaledSum`: later errors point at its
  // location.
  auto fail = [loc = task->scaledSum.getLoc()](const Twine &message) {
    return emitError(loc) << "block-quantized projection " << message;
  };
  FailureOr<BlockTile> kernel =
      tileWithPartials(rewriter, task->scaledSum, kernelSizes,
                       scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(kernel))
    return fail("could not be tiled into register tiles");
  // The zero fill of the partial accumulators, once per block.
  auto zeroPartials = kernel->partials.getDpsInitOperand(0)
                          ->get()
                          .getDefiningOp<linalg::FillOp>();
  SmallVector<int64_t> stepSizes(kernel->partials.getNumLoops(), 0);
  stepSizes[stepSizes.size() - 2] = 1; // one quant
  FailureOr<linalg::GenericOp> quantStep =
      tile(rewriter, kernel->partials, stepSizes,
           scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(quantStep))
    return fail("could not be tiled into quant steps");
  if (failed(vectorizeInPlace(rewriter, *quantStep)) ||
      failed(vectorizeInPlace(rewriter, kernel->scaledSum)) ||
      (zeroPartials && failed(vectorizeInPlace(rewriter, zeroPartials))))
    return fail("register tile could not be vectorised");
  return success();
}

/// A projection whose output columns only one elementwise op reads: a
/// bias, an activation, a residual add (whose other inputs are read per
/// column, per row or per element), or, for a *gated* projection, an op
/// that combines the two halves of its columns, as SwiGLU's
/// `silu(gate) * up` after tfm-fuse-ffn.
struct ProjectionEpilogue {
  linalg::GenericOp projection;
  /// The projection's `[rows][columns]` view that the epilogue reads.
  tensor::CollapseShapeOp columns;
  linalg::GenericOp epilogue;
  /// 1, or 2 for a gated projection.
  int64_t parts = 1;
  /// For each epilogue input, the part of the columns it reads, or -1 when
  /// it is another operand.
  SmallVector<int64_t> inputPart;
  /// The micro-kernel's tile of one part: rows per register tile, panels
  /// per task.
  TileSizes sizes;
};

/// How an epilogue reads an operand that is not the projection's: per
/// element `(s, n)`, per column `(n)` (a bias) or per row `(s)`.
enum class OtherOperand { Element, Column, Row };

std::optional<OtherOperand> classifyOtherOperand(AffineMap map) {
  MLIRContext *context = map.getContext();
  if (map.isIdentity())
    return OtherOperand::Element;
  if (map == AffineMap::get(2, 0, getAffineDimExpr(1, context)))
    return OtherOperand::Column;
  if (map == AffineMap::get(2, 0, getAffineDimExpr(0, context)))
    return OtherOperand::Row;
  return std::nullopt;
}

/// Matches `projection -> collapse_shape -> (whole | two column halves) ->
/// elementwise epilogue` (see ProjectionEpilogue) whose task tiles, with the
/// tile sizes that `accumulators` and `parallelTiles` give, fit in
/// kMaxTaskTileBytes.
std::optional<ProjectionEpilogue>
matchProjectionEpilogue(linalg::GenericOp projection, int64_t accumulators,
                        int64_t parallelTiles) {
  Value result = projection->getResult(0);
  if (!result.hasOneUse() ||
      !projection.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>())
    return std::nullopt;
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(*result.user_begin());
  SmallVector<ReassociationIndices> panelsToColumns = {{0}, {1, 2}};
  if (!collapse || collapse.getReassociationIndices() != panelsToColumns)
    return std::nullopt;
  auto type = cast<RankedTensorType>(result.getType());
  int64_t rows = type.getDimSize(0), panels = type.getDimSize(1);
  int64_t columns = panels * type.getDimSize(2);

  ProjectionEpilogue match;
  match.projection = projection;
  match.columns = collapse;
  SmallVector<OpOperand *> reads;
  SmallVector<Operation *> users(collapse->getUsers());
  if (users.size() == 1) {
    reads.push_back(&*collapse->use_begin());
  } else if (users.size() == 2 && panels % 2 == 0) {
    match.parts = 2;
    for (Operation *user : users) {
      auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
      if (!slice || !slice->hasOneUse() || !slice.hasUnitStride())
        return std::nullopt;
      // Rows [0, rows) of columns [0, half) or [half, 2 * half).
      ArrayRef<int64_t> offsets = slice.getStaticOffsets();
      ArrayRef<int64_t> sizes = slice.getStaticSizes();
      int64_t half = columns / 2;
      if (offsets[0] != 0 || (offsets[1] != 0 && offsets[1] != half) ||
          sizes[0] != rows || sizes[1] != half)
        return std::nullopt;
      reads.push_back(&*slice->use_begin());
    }
  } else {
    return std::nullopt;
  }
  // A task holds each part's tile of its panels, for all rows.
  match.sizes =
      chooseTileSizes(panels / match.parts, rows, accumulators, parallelTiles);
  int64_t tileBytes = rows * match.sizes.panels * type.getDimSize(2) *
                      type.getElementTypeBitWidth() / 8;
  if (tileBytes > kMaxTaskTileBytes)
    return std::nullopt;

  auto epilogue = dyn_cast<linalg::GenericOp>(reads.front()->getOwner());
  if (!epilogue || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumLoops() != 2 ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops() ||
      !epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))
           .isIdentity() ||
      epilogue.payloadUsesValueFromOperand(epilogue.getDpsInitOperand(0)) ||
      !epilogue.getBody()->getOps<linalg::IndexOp>().empty() ||
      failed(linalg::vectorizeOpPrecondition(epilogue)))
    return std::nullopt;
  match.epilogue = epilogue;
  match.inputPart.assign(epilogue.getNumDpsInputs(), -1);
  for (OpOperand *read : reads) {
    if (read->getOwner() != epilogue || !epilogue.isDpsInput(read) ||
        !epilogue.getMatchingIndexingMap(read).isIdentity())
      return std::nullopt;
    Value source = read->get();
    auto slice = source.getDefiningOp<tensor::ExtractSliceOp>();
    int64_t part = slice && slice.getStaticOffsets()[1] != 0 ? 1 : 0;
    match.inputPart[read->getOperandNumber()] = part;
  }
  if (match.parts == 2 && match.inputPart[reads[0]->getOperandNumber()] ==
                              match.inputPart[reads[1]->getOperandNumber()])
    return std::nullopt;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    if (match.inputPart[input->getOperandNumber()] >= 0)
      continue;
    auto operandType = dyn_cast<RankedTensorType>(input->get().getType());
    if (!operandType || !operandType.hasStaticShape() ||
        !classifyOtherOperand(epilogue.getMatchingIndexingMap(input)))
      return std::nullopt;
  }
  return match;
}

/// Rewrites the epilogue over the projection's panel layout `[rows][panels /
/// parts][lanes]`, splitting a gated projection into one projection per
/// half, so that each output panel of the epilogue reads the same panel of
/// each part. Other operands are reshaped to match (per element: the same
/// layout; per column: `[panels][lanes]`). Returns the new epilogue.
linalg::GenericOp rewriteEpilogueOverPanels(RewriterBase &rewriter,
                                            ProjectionEpilogue match) {
  linalg::GenericOp projection = match.projection;
  Location loc = projection.getLoc();
  auto type = cast<RankedTensorType>(projection->getResult(0).getType());
  int64_t rows = type.getDimSize(0), panels = type.getDimSize(1) / match.parts,
          lanes = type.getDimSize(2);
  Type element = type.getElementType();
  auto partType = RankedTensorType::get({rows, panels, lanes}, element);
  // The panels: one operand, or the even and odd columns of bf16 pairs.
  SmallVector<OpOperand *, 2> weights;
  for (int64_t i = 1; i < projection.getNumDpsInputs(); ++i)
    weights.push_back(projection.getDpsInputOperand(i));
  int64_t features =
      cast<RankedTensorType>(weights.front()->get().getType()).getDimSize(1);
  auto fill =
      projection.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();

  rewriter.setInsertionPoint(match.epilogue);
  SmallVector<Value, 2> parts = {projection->getResult(0)};
  if (match.parts == 2) {
    parts.clear();
    for (int64_t half = 0; half < 2; ++half) {
      SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(half * panels),
                                           rewriter.getIndexAttr(0),
                                           rewriter.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(panels),
                                         rewriter.getIndexAttr(features),
                                         rewriter.getIndexAttr(lanes)};
      SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
      SmallVector<Value, 2> halfWeights;
      for (OpOperand *operand : weights)
        halfWeights.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc, operand->get(), offsets, sizes, strides));
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, partType.getShape(), element);
      Value init = linalg::FillOp::create(rewriter, loc, fill.getInputs(),
                                          ValueRange{empty})
                       .getResult(0);
      auto halfProjection =
          cast<linalg::GenericOp>(rewriter.clone(*projection));
      for (auto [operand, half] : llvm::zip(weights, halfWeights))
        halfProjection->getOpOperand(operand->getOperandNumber()).set(half);
      halfProjection.getDpsInitOperand(0)->set(init);
      halfProjection->getResult(0).setType(partType);
      parts.push_back(halfProjection->getResult(0));
    }
  }

  MLIRContext *context = rewriter.getContext();
  AffineMap identity = rewriter.getMultiDimIdentityMap(3);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : match.epilogue.getDpsInputOperands()) {
    int64_t part = match.inputPart[input->getOperandNumber()];
    if (part >= 0) {
      inputs.push_back(parts[part]);
      maps.push_back(identity);
      continue;
    }
    Value operand = input->get();
    Type operandElement =
        cast<RankedTensorType>(operand.getType()).getElementType();
    switch (
        *classifyOtherOperand(match.epilogue.getMatchingIndexingMap(input))) {
    case OtherOperand::Element:
      inputs.push_back(tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({rows, panels, lanes}, operandElement), operand,
          SmallVector<ReassociationIndices>{{0}, {1, 2}}));
      maps.push_back(identity);
      break;
    case OtherOperand::Column:
      inputs.push_back(tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({panels, lanes}, operandElement),
          operand, SmallVector<ReassociationIndices>{{0, 1}}));
      maps.push_back(AffineMap::get(
          3, 0, {getAffineDimExpr(1, context), getAffineDimExpr(2, context)},
          context));
      break;
    case OtherOperand::Row:
      inputs.push_back(operand);
      maps.push_back(AffineMap::get(3, 0, getAffineDimExpr(0, context)));
      break;
    }
  }
  auto outputType = RankedTensorType::get(
      {rows, panels, lanes},
      getElementTypeOrSelf(match.epilogue->getResult(0).getType()));
  Value output = tensor::EmptyOp::create(rewriter, loc, outputType.getShape(),
                                         outputType.getElementType());
  maps.push_back(identity);
  auto epilogue = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outputType}, inputs, ValueRange{output}, maps,
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel));
  rewriter.cloneRegionBefore(match.epilogue.getRegion(), epilogue.getRegion(),
                             epilogue.getRegion().end());
  SmallVector<ReassociationIndices> panelsToColumns = {{0}, {1, 2}};
  Value columns = tensor::CollapseShapeOp::create(
      rewriter, loc, epilogue->getResult(0), panelsToColumns);
  rewriter.replaceOp(match.epilogue, columns);

  // The old column views (and, when split, the whole projection) are dead:
  // erase them so that each projection's only user is the new epilogue.
  for (Operation *slice : llvm::make_early_inc_range(match.columns->getUsers()))
    rewriter.eraseOp(slice);
  rewriter.eraseOp(match.columns);
  if (match.parts == 2)
    rewriter.eraseOp(projection);
  return epilogue;
}

/// Tiles the epilogue over output panels and fuses its projections (one, or
/// a gated projection's two halves) into each task: a task computes its
/// panels of the projections with the micro-kernel, then the epilogue on
/// them while they are in cache, so the epilogue runs on every thread and
/// no separate pass reads the projection's output again.
LogicalResult buildEpilogueKernel(RewriterBase &rewriter,
                                  linalg::GenericOp epilogue, TileSizes sizes) {
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), {0, sizes.panels, 0}));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // Only the projections and their fills: the projections' input (a norm,
  // say) and the epilogue's other operands are computed once, before the
  // loop.
  SmallVector<Operation *> projections;
  for (Value input : epilogue.getDpsInputs())
    if (auto generic = input.getDefiningOp<linalg::GenericOp>();
        generic && generic->hasOneUse() && isPanelProjection(generic))
      projections.push_back(generic);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *op = producer.getOwner();
        if (llvm::is_contained(projections, op))
          return scf::SCFTileAndFuseOptions::ControlFnResult{true};
        if (isa<linalg::FillOp>(op))
          return scf::SCFTileAndFuseOptions::ControlFnResult{false};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(epilogue);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(epilogue.getOperation()), options);
  if (failed(fused))
    return epilogue.emitOpError("could not be fused with its projections");
  rewriter.replaceAllUsesWith(
      epilogue->getResult(0),
      fused->replacements.lookup(epilogue->getResult(0)));

  for (Operation *op : fused->tiledAndFusedOps) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && isPanelProjection(generic)) {
      if (failed(buildRegisterTile(rewriter, generic, sizes.rows)))
        return failure();
    } else if (op == fused->tiledAndFusedOps.front()) {
      // The epilogue: one row of the task's panels at a time.
      FailureOr<linalg::GenericOp> row =
          tile(rewriter, cast<linalg::GenericOp>(op), {1, 0, 0},
               scf::SCFTilingOptions::LoopType::ForOp);
      if (failed(row))
        return op->emitOpError("epilogue could not be tiled into rows");
      rewriter.setInsertionPoint(*row);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, *row);
      if (failed(vectorized))
        return op->emitOpError("epilogue could not be vectorised");
      rewriter.replaceOp(*row, vectorized->replacements);
    }
  }
  return success();
}

/// Accumulators take at most half the vector registers (the rest hold
/// weights and broadcast inputs), and a 16-lane f32 panel row takes
/// 512 / vector_bits of them: AVX-512 (32 of 512 bits) gets 8 rows, AVX2
/// (16 of 256) 4. Without a target, the AVX-512 tile.
int64_t accumulatorsForTarget(TargetAttr target) {
  CpuTargetAttr cpu = getCpuTarget(target);
  if (!cpu)
    return 8;
  int64_t registersPerRow = std::max<int64_t>(1, 512 / cpu.getVectorBits());
  int64_t rows = cpu.getVectorRegisters() / 2 / registersPerRow;
  return std::clamp<int64_t>(rows, 1, 8);
}

/// `transfer_read(transfer_write(splat, t))` where the in-bounds write
/// covers all of `t`: every element read is the splat's, whatever the
/// read's permutation (upstream folds only reads that match the write).
/// This removes the zero fill of the partial accumulators, whose write and
/// read differ in the unit dimensions they drop.
struct ForwardWholeSplatWrite : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto write = read.getBase().getDefiningOp<vector::TransferWriteOp>();
    if (!write || read.getMask() || write.getMask() ||
        !isa<RankedTensorType>(write.getBase().getType()))
      return failure();
    auto tensorType = cast<RankedTensorType>(write.getBase().getType());
    VectorType written = write.getVectorType();
    if (!write.getPermutationMap().isIdentity() ||
        written.getShape() != tensorType.getShape() ||
        llvm::any_of(write.getIndices(),
                     [](Value index) { return !isZeroInteger(index); }) ||
        llvm::any_of(read.getInBoundsValues(), [](bool in) { return !in; }))
      return failure();
    SplatElementsAttr splat;
    if (!matchPattern(write.getVector(), m_Constant(&splat)))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        read, SplatElementsAttr::get(read.getVectorType(),
                                     splat.getSplatValue<Attribute>()));
    return success();
  }
};

struct TfmCpuTileProjections
    : mlir::tfm::impl::TfmCpuTileProjectionsBase<TfmCpuTileProjections> {
  using TfmCpuTileProjectionsBase::TfmCpuTileProjectionsBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (accumulators < 0 || parallelTiles < 1) {
      root->emitError() << "tfm-cpu-tile-projections: accumulators must not "
                           "be negative and parallel-tiles must be positive";
      return signalPassFailure();
    }
    int64_t accumulators = this->accumulators;
    if (accumulators == 0)
      accumulators = accumulatorsForTarget(getTarget(root));
    SmallVector<linalg::GenericOp> projections;
    root->walk([&](linalg::GenericOp op) {
      if (isPanelProjection(op) || blockPartialsOfScaledSum(op))
        projections.push_back(op);
    });
    if (projections.empty())
      return;
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : projections) {
      if (fuseEpilogues && isPanelProjection(op)) {
        if (std::optional<ProjectionEpilogue> match =
                matchProjectionEpilogue(op, accumulators, parallelTiles)) {
          linalg::GenericOp epilogue =
              rewriteEpilogueOverPanels(rewriter, *match);
          if (failed(buildEpilogueKernel(rewriter, epilogue, match->sizes)))
            return signalPassFailure();
          continue;
        }
      }
      if (blockPartialsOfScaledSum(op)) {
        if (failed(buildBlockKernel(rewriter, op, accumulators, parallelTiles)))
          return signalPassFailure();
        continue;
      }
      if (failed(buildMicroKernel(rewriter, op, accumulators, parallelTiles)))
        return signalPassFailure();
    }

    // The vectorised tile multiplies broadcasts and reduces over the unit
    // feature dimension: as a vector.contract with the leading unit
    // dimensions dropped, the accumulator read and write fold to plain
    // transfers of the output tile.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    for (Dialect *dialect : getContext().getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName name : getContext().getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, &getContext());
    // Like the canonicalizer, a rewrite that has not converged is still a
    // correct program.
    (void)applyPatternsGreedily(root, std::move(patterns));

    // Innermost loops first: the accumulator tile leaves the feature loop
    // as an iter_args vector (in registers), read once and written once.
    // Only the micro-kernels' loops carry tensors at this point.
    SmallVector<LoopLikeOpInterface> loops;
    root->walk([&](scf::ForOp loop) {
      if (llvm::any_of(loop.getInitArgs(), [](Value init) {
            return isa<RankedTensorType>(init.getType());
          }))
        loops.push_back(loop);
    });
    for (LoopLikeOpInterface loop : loops)
      (void)hoistLoopInvariantSubsets(rewriter, loop);

    // Hoisted out of the quant loop, the read of the zeroed partial
    // accumulators reads the zero fill: it becomes the zero vector.
    RewritePatternSet forwarding(&getContext());
    forwarding.add<ForwardWholeSplatWrite>(&getContext());
    (void)applyPatternsGreedily(root, std::move(forwarding));
  }
};

} // namespace
