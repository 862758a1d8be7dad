//===- ProjectionEpilogues.cpp - Epilogues in projection kernels ----------===//
#include "passes/Codegen/CPU/ProjectionEpilogues.h"

#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/CPU/ProjectionMatchers.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;

namespace {

/// A panel projection or a block-quantized projection's scaled sum that
/// carries its kernel configuration (the tiled copies of one do too).
bool isConfiguredProjection(linalg::GenericOp op) {
  return getProjectionConfig(op) &&
         (isPanelProjection(op) || blockPartialsOfScaledSum(op));
}

/// The position of the panel loop (loop 0 of both a panel projection and
/// the two ops of a block-quantized one) among the results of `map`.
std::optional<unsigned> panelPosition(AffineMap map) {
  return map.getResultPosition(getAffineDimExpr(0, map.getContext()));
}

/// A copy of `op` over output panels [first, first + count): its operands
/// indexed by the panel loop are sliced to those panels (after `replaced`
/// substitutes the values it maps), its output is a fresh fill of the
/// value `op`'s output was filled with.
linalg::GenericOp cloneOverPanels(RewriterBase &rewriter, linalg::GenericOp op,
                                  int64_t first, int64_t count,
                                  const IRMapping &replaced) {
  Location loc = op.getLoc();
  auto panelSlice = [&](Value value, unsigned position) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes;
    for (int64_t extent : type.getShape())
      sizes.push_back(rewriter.getIndexAttr(extent));
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    offsets[position] = rewriter.getIndexAttr(first);
    sizes[position] = rewriter.getIndexAttr(count);
    return tensor::ExtractSliceOp::create(rewriter, loc, value, offsets, sizes,
                                          strides);
  };
  SmallVector<std::pair<unsigned, Value>> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = replaced.lookupOrDefault(input->get());
    if (value != input->get())
      inputs.emplace_back(input->getOperandNumber(), value);
    else if (std::optional<unsigned> position =
                 panelPosition(op.getMatchingIndexingMap(input)))
      inputs.emplace_back(input->getOperandNumber(),
                          panelSlice(value, *position));
  }
  OpOperand *init = op.getDpsInitOperand(0);
  auto fill = init->get().getDefiningOp<linalg::FillOp>();
  auto type = cast<RankedTensorType>(init->get().getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[*panelPosition(op.getMatchingIndexingMap(init))] = count;
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  Value filled =
      linalg::FillOp::create(rewriter, loc, fill.getInputs(), ValueRange{empty})
          .getResult(0);
  auto part = cast<linalg::GenericOp>(rewriter.clone(*op));
  for (auto [number, value] : inputs)
    part->getOpOperand(number).set(value);
  part.getDpsInitOperand(0)->set(filled);
  part->getResult(0).setType(filled.getType());
  return part;
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

std::optional<ProjectionEpilogue>
mlir::tfm::cpu::matchProjectionEpilogue(linalg::GenericOp projection,
                                        TileBudget budget) {
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
  // A gated block-quantized projection is split with its partial products,
  // each half's zeroed afresh.
  if (linalg::GenericOp partials = blockPartialsOfScaledSum(projection);
      match.parts == 2 && partials &&
      !partials.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>())
    return std::nullopt;
  // A task holds each part's tile of its panels, for all rows.
  match.sizes =
      chooseProjectionTileSizes(projection, panels / match.parts, budget);
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
  // A block-quantized projection's partial products are split with it.
  linalg::GenericOp partials = blockPartialsOfScaledSum(projection);

  rewriter.setInsertionPoint(match.epilogue);
  SmallVector<Value, 2> parts = {projection->getResult(0)};
  if (match.parts == 2) {
    parts.clear();
    for (int64_t half = 0; half < 2; ++half) {
      IRMapping halfValues;
      if (partials)
        halfValues.map(partials->getResult(0),
                       cloneOverPanels(rewriter, partials, half * panels,
                                       panels, IRMapping())
                           ->getResult(0));
      parts.push_back(cloneOverPanels(rewriter, projection, half * panels,
                                      panels, halfValues)
                          ->getResult(0));
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
  if (match.parts == 2) {
    rewriter.eraseOp(projection);
    if (partials)
      rewriter.eraseOp(partials);
  }
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
  SmallVector<Operation *> projections, partials;
  Attribute config;
  for (Value input : epilogue.getDpsInputs())
    if (auto generic = input.getDefiningOp<linalg::GenericOp>();
        generic && generic->hasOneUse() && isConfiguredProjection(generic)) {
      projections.push_back(generic);
      if (linalg::GenericOp products = blockPartialsOfScaledSum(generic))
        partials.push_back(products);
      config = getKernelConfig(generic);
    }
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *op = producer.getOwner();
        if (llvm::is_contained(projections, op))
          return scf::SCFTileAndFuseOptions::ControlFnResult{true};
        if (isa<linalg::FillOp>(op) || llvm::is_contained(partials, op))
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

  // Building a tile replaces ops of the task (a block-quantized one erases
  // its scaled sum): gather the task's projections first.
  auto taskEpilogue = cast<linalg::GenericOp>(fused->tiledAndFusedOps.front());
  SmallVector<linalg::GenericOp> taskProjections;
  for (Operation *op : fused->tiledAndFusedOps)
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && isConfiguredProjection(generic))
      taskProjections.push_back(generic);

  // The epilogue: one row of the task's panels at a time.
  FailureOr<linalg::GenericOp> row =
      tile(rewriter, taskEpilogue, {1, 0, 0},
           scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(row))
    return taskEpilogue.emitOpError("epilogue could not be tiled into rows");
  Location rowLoc = row->getLoc();
  if (failed(vectorizeInPlace(rewriter, *row)))
    return emitError(rowLoc, "epilogue could not be vectorised");

  for (linalg::GenericOp task : taskProjections)
    if (failed(isPanelProjection(task)
                   ? buildRegisterTile(rewriter, task, sizes.rows)
                   : buildBlockRegisterTile(rewriter, task, sizes.rows)))
      return failure();
  return success();
}
