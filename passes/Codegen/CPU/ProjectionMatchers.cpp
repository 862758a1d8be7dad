//===- ProjectionMatchers.cpp - The linalg forms of panel projections -----===//
#include "passes/Codegen/CPU/ProjectionMatchers.h"

using namespace mlir;
using namespace mlir::tfm::cpu;

bool mlir::tfm::cpu::isPanelProjection(linalg::GenericOp op) {
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

bool mlir::tfm::cpu::isBlockPartialProduct(linalg::GenericOp op) {
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

linalg::GenericOp
mlir::tfm::cpu::blockPartialsOfScaledSum(linalg::GenericOp op) {
  int64_t numInputs = op.getNumDpsInputs();
  unsigned loops = op.getNumLoops();
  if (numInputs < 2 || op.getNumDpsInits() != 1 || (loops != 4 && loops != 5) ||
      !op.hasPureTensorSemantics())
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
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The partial products, then per panel and block the weights' scales and
  // what else the kernel has of them (minimums), per row and block what it
  // has of the inputs (sums, offsets, scales), in any order.
  if (maps.front() != identity.getSubMap(partialDims) ||
      maps[1] != perPanelBlock ||
      maps.back() != identity.getSubMap({1, 0, lane}))
    return nullptr;
  // With two block loops (Q4_0's half blocks, the k-quants' sub-blocks of
  // super-blocks), operands may also vary with the inner one.
  auto allowed = [&](AffineMap map) {
    if (map == perPanelBlock || map == perRowBlock)
      return true;
    return loops == 5 && (map == identity.getSubMap({0, 2, 3, lane}) ||
                          map == identity.getSubMap({1, 2, 3}));
  };
  for (AffineMap map : ArrayRef(maps).slice(2, numInputs - 2))
    if (!allowed(map))
      return nullptr;
  auto partials = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!partials || !partials->hasOneUse() || !isBlockPartialProduct(partials))
    return nullptr;
  return partials;
}
