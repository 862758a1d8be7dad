//===- ProjectionEpilogues.cpp - Epilogues in projection kernels ----------===//
#include "passes/Codegen/CPU/ProjectionEpilogues.h"

#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/CPU/ProjectionMatchers.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;

namespace {

/// A panel projection that carries its kernel configuration (the tiled
/// copies of one do too).
bool isConfiguredProjection(linalg::GenericOp op) {
  return getProjectionConfig(op) && isPanelProjection(op);
}

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

} // namespace

std::optional<ProjectionEpilogue> mlir::tfm::cpu::matchProjectionEpilogue(
    linalg::GenericOp projection, int64_t accumulators, int64_t parallelTiles) {
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

linalg::GenericOp
mlir::tfm::cpu::rewriteEpilogueOverPanels(RewriterBase &rewriter,
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

LogicalResult mlir::tfm::cpu::buildEpilogueKernel(RewriterBase &rewriter,
                                                  linalg::GenericOp epilogue,
                                                  TileSizes sizes) {
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
  Attribute config;
  for (Value input : epilogue.getDpsInputs())
    if (auto generic = input.getDefiningOp<linalg::GenericOp>();
        generic && generic->hasOneUse() && isConfiguredProjection(generic)) {
      projections.push_back(generic);
      config = getKernelConfig(generic);
    }
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
  // The task loop is the projections' kernel (both halves of a gated one
  // share their weight's configuration).
  setLoopsConfig(fused->loops, config);

  for (Operation *op : fused->tiledAndFusedOps) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && isConfiguredProjection(generic)) {
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
