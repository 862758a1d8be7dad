//===- BindWeights.cpp - Weights as views of the CPU executable's blob ----===//
//
// A produced executable maps one weights blob and passes it to every entry;
// the package writer lays the tensors out with the same computeWeightLayout,
// so code and data cannot disagree (the layout's hash is checked at start).
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/WeightLayout.h"
#include "dialect/TfmContracts.h"
#include "passes/Codegen/CPU/Passes.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUBINDWEIGHTS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Gives every function that reads weights a leading blob argument and turns
/// its `tfm.weight` ops into read-only views of the blob.
LogicalResult bindWeights(ModuleOp module, const WeightLayout &layout) {
  MLIRContext *context = module.getContext();
  auto blobType = MemRefType::get({static_cast<int64_t>(layout.totalBytes)},
                                  IntegerType::get(context, 8));
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<WeightOp> reads;
    func.walk([&](WeightOp op) { reads.push_back(op); });
    if (reads.empty() || func.isExternal())
      continue;
    if (failed(func.insertArgument(0, blobType, {}, func.getLoc())))
      return failure();
    setEntryArg(cast<FunctionOpInterface>(func.getOperation()), 0,
                EntryArg::weights);
    Value blob = func.getArgument(0);
    for (WeightOp read : reads) {
      const WeightSlot *slot = layout.lookup(read.getName());
      if (!slot)
        return read.emitOpError("reads an undeclared weight");
      OpBuilder b(read);
      auto tensorType = cast<RankedTensorType>(read.getType());
      auto viewType =
          MemRefType::get(tensorType.getShape(), tensorType.getElementType());
      Value offset = arith::ConstantIndexOp::create(
          b, read.getLoc(), static_cast<int64_t>(slot->offset));
      Value view = memref::ViewOp::create(b, read.getLoc(), viewType, blob,
                                          offset, ValueRange{});
      Value tensor = bufferization::ToTensorOp::create(
          b, read.getLoc(), tensorType, view, /*restrict=*/true,
          /*writable=*/false);
      read.replaceAllUsesWith(tensor);
      read.erase();
    }
  }
  return success();
}

/// Records the layout for readers of the lowered module, then drops the
/// declarations (nothing refers to them any more).
void recordLayout(ModuleOp module, const WeightLayout &layout) {
  Builder b(module.getContext());
  SmallVector<NamedAttribute> offsets;
  for (const WeightSlot &slot : layout.slots)
    offsets.push_back(b.getNamedAttr(
        slot.name, b.getI64IntegerAttr(static_cast<int64_t>(slot.offset))));
  setWeightsLayout(module, WeightsLayoutAttr::get(
                               module.getContext(),
                               static_cast<int64_t>(layout.totalBytes),
                               layout.hash, b.getDictionaryAttr(offsets)));
  for (auto global :
       llvm::make_early_inc_range(module.getOps<GlobalWeightOp>()))
    global.erase();
}

struct TfmCpuBindWeights
    : mlir::tfm::impl::TfmCpuBindWeightsBase<TfmCpuBindWeights> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WeightLayout layout = computeWeightLayout(module);
    if (failed(bindWeights(module, layout)))
      return signalPassFailure();
    recordLayout(module, layout);
  }
};

} // namespace
