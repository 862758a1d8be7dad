//===- EntryCloning.cpp - Clone @forward's ops into an entry --------------===//
#include "passes/Transforms/KVCache/Entries.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace mlir::tfm;

LogicalResult mlir::tfm::refineResultTypes(Operation *op) {
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      return failure();
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
    return success();
  }
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    for (OpResult result : op->getResults())
      result.setType(op->getOperand(0).getType());
    return success();
  }
  return success();
}

void mlir::tfm::cloneAttentionOver(OpBuilder &builder, IRMapping &mapping,
                                   AttentionOp attention, Value keys,
                                   Value values, Value offset,
                                   IntegerAttr ring) {
  auto clone = AttentionOp::create(
      builder, attention.getLoc(), mapping.lookup(attention.getQuery()), keys,
      values, offset, mapping.lookupOrNull(attention.getSlopes()),
      mapping.lookupOrNull(attention.getRelativeBias()),
      attention.getNumHeadsAttr(), attention.getNumKvHeadsAttr(),
      attention.getMaskAttr(), attention.getWindowAttr(),
      attention.getCacheAttr(), ring, attention.getMaxDistanceAttr(),
      attention.getScaleAttr());
  mapping.map(attention.getResult(), clone.getResult());
}
