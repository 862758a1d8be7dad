//===- EntryCloning.cpp - Clone @forward's ops into an entry --------------===//
#include "passes/Transforms/KVCache/Entries.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace mlir::tfm;

LogicalResult mlir::tfm::refineResultTypes(Operation *original,
                                           Operation *clone) {
  if (auto infer = dyn_cast<InferTypeOpInterface>(clone)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            clone->getContext(), clone->getLoc(), clone->getOperands(),
            clone->getRawDictionaryAttrs(), clone->getPropertiesStorage(),
            clone->getRegions(), types)))
      return failure();
    for (auto [result, type] : llvm::zip(clone->getResults(), types))
      result.setType(type);
    return success();
  }
  if (clone->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    for (OpResult result : clone->getResults())
      result.setType(clone->getOperand(0).getType());
    return success();
  }
  // Results that depend on nothing that changed keep their types (weights,
  // constants, ops over them); any other would keep the shape of @forward's
  // sequence, which is wrong in every entry.
  if (clone->getNumResults() == 0 ||
      llvm::equal(original->getOperandTypes(), clone->getOperandTypes()))
    return success();
  return original->emitOpError(
      "reads values whose shape depends on the sequence length, but cannot "
      "re-infer its result types for an entry's sequence; tfm-kv-cache "
      "clones only such ops that implement InferTypeOpInterface or have "
      "SameOperandsAndResultType");
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
      attention.getScaleAttr(), attention.getSoftcapAttr());
  mapping.map(attention.getResult(), clone.getResult());
}
