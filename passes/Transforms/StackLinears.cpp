//===- StackLinears.cpp - One GEMM for projections of one input -----------===//
#include "passes/Transforms/StackLinears.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::tfm;

SmallVector<SmallVector<LinearOp>>
mlir::tfm::groupLinearsByInput(Operation *func) {
  llvm::MapVector<Value, SmallVector<LinearOp>> groups;
  func->walk(
      [&](LinearOp linear) { groups[linear.getInput()].push_back(linear); });
  SmallVector<SmallVector<LinearOp>> result;
  for (auto &entry : groups) {
    SmallVector<LinearOp> group = entry.second;
    llvm::sort(group,
               [](LinearOp a, LinearOp b) { return a->isBeforeInBlock(b); });
    result.push_back(std::move(group));
  }
  return result;
}

/// The declaration `value` reads, if it is a plain (unstacked) model tensor.
static GlobalWeightOp plainWeight(ModuleOp module, Value value) {
  auto read = value ? value.getDefiningOp<WeightOp>() : WeightOp();
  if (!read)
    return {};
  auto global = module.lookupSymbol<GlobalWeightOp>(read.getNameAttr());
  if (!global || global.getStacked())
    return {};
  return global;
}

/// Declares (once) the stack of `parts` named `name`; returns its read.
static FailureOr<Value> readStacked(OpBuilder &builder, ModuleOp module,
                                    StringRef name,
                                    ArrayRef<GlobalWeightOp> parts) {
  GlobalWeightOp front = parts.front();
  auto first = cast<RankedTensorType>(front.getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[0] = 0;
  SmallVector<StringRef> names;
  for (GlobalWeightOp part : parts) {
    auto partType = cast<RankedTensorType>(part.getType());
    // One stack holds one element type: f32 Q with bf16 K stays unfused.
    if (partType.getElementType() != first.getElementType())
      return failure();
    shape[0] += partType.getDimSize(0);
    names.push_back(part.getSymName());
  }
  auto type = RankedTensorType::get(shape, first.getElementType());
  auto global = module.lookupSymbol<GlobalWeightOp>(name);
  if (global && global.getType() != type)
    return failure();
  if (!global) {
    OpBuilder declare(front);
    global = GlobalWeightOp::create(declare, front.getLoc(), name, type,
                                    declare.getStrArrayAttr(names));
    // The stack keeps the types the file stores its tensors in, when every
    // tensor records one: one type when they share it, else one per tensor
    // (Q4_K_M's Q/K/V: Q4_K, Q4_K, Q6_K).
    SmallVector<tfmc::weights::ElementType> stored;
    for (GlobalWeightOp part : parts) {
      StoredAttr partStored = part.getStoredAttr();
      if (!partStored || !partStored.getShared())
        break;
      stored.push_back(*partStored.getShared());
    }
    if (stored.size() == parts.size()) {
      if (llvm::all_equal(stored))
        stored.resize(1);
      global.setStoredAttr(StoredAttr::get(module.getContext(), stored));
    }
  }
  return WeightOp::create(builder, global.getLoc(), type, name).getResult();
}

LogicalResult mlir::tfm::stackLinears(ModuleOp module,
                                      ArrayRef<LinearOp> linears,
                                      StringRef weightLeaf,
                                      StringRef biasLeaf) {
  if (linears.size() < 2)
    return failure();
  LinearOp first = linears.front();
  bool biased = static_cast<bool>(first.getBias());
  SmallVector<GlobalWeightOp> weights, biases;
  for (LinearOp linear : linears) {
    if (static_cast<bool>(linear.getBias()) != biased)
      return failure();
    GlobalWeightOp weight = plainWeight(module, linear.getWeight());
    if (!weight)
      return failure();
    weights.push_back(weight);
    if (biased) {
      GlobalWeightOp bias = plainWeight(module, linear.getBias());
      if (!bias)
        return failure();
      biases.push_back(bias);
    }
  }
  StringRef firstName = weights.front().getSymName();
  std::string prefix = firstName.substr(0, firstName.rfind('.') + 1).str();

  OpBuilder builder(first);
  FailureOr<Value> stackedWeight =
      readStacked(builder, module, prefix + weightLeaf.str(), weights);
  if (failed(stackedWeight))
    return failure();
  Value stackedBias;
  if (biased) {
    FailureOr<Value> bias =
        readStacked(builder, module, prefix + biasLeaf.str(), biases);
    if (failed(bias))
      return failure();
    stackedBias = *bias;
  }
  auto fused = LinearOp::create(builder, first.getLoc(), first.getInput(),
                                *stackedWeight, stackedBias);

  int64_t rows = cast<RankedTensorType>(fused.getType()).getDimSize(0);
  int64_t column = 0;
  for (LinearOp linear : linears) {
    int64_t width = cast<RankedTensorType>(linear.getType()).getDimSize(1);
    SmallVector<OpFoldResult> offsets = {builder.getIndexAttr(0),
                                         builder.getIndexAttr(column)};
    SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(rows),
                                       builder.getIndexAttr(width)};
    SmallVector<OpFoldResult> strides(2, builder.getIndexAttr(1));
    Value slice = tensor::ExtractSliceOp::create(
        builder, linear.getLoc(), cast<RankedTensorType>(linear.getType()),
        fused, offsets, sizes, strides);
    linear.replaceAllUsesWith(slice);
    column += width;
  }
  // Erased only now: the builder inserts before the first original.
  for (LinearOp linear : linears)
    linear.erase();
  return success();
}

void mlir::tfm::eraseUnreadWeights(ModuleOp module) {
  // Reads that lost their users go first, so their declarations become free.
  SmallVector<WeightOp> deadReads;
  module.walk([&](WeightOp read) {
    if (read->use_empty())
      deadReads.push_back(read);
  });
  for (WeightOp read : deadReads)
    read.erase();
  for (auto global :
       llvm::make_early_inc_range(module.getOps<GlobalWeightOp>()))
    if (SymbolTable::symbolKnownUseEmpty(global, module))
      global.erase();
}
