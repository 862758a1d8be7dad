//===- TfmToLinalg.cpp - The convert-tfm-to-linalg pass ----------------------===//
#include "passes/TfmToLinalg/TfmToLinalg.h"

#include "compiler/weights/WeightLayout.h"
#include "dialect/TfmOps.h"
#include "passes/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CONVERTTFMTOLINALG
#include "passes/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

void mlir::tfm::populateTfmToLinalgPatterns(RewritePatternSet &patterns) {
  populateTfmElementwiseToLinalgPatterns(patterns);
  populateTfmNormsToLinalgPatterns(patterns);
  populateTfmProjectionsToLinalgPatterns(patterns);
  populateTfmPositionalToLinalgPatterns(patterns);
  populateTfmAttentionToLinalgPatterns(patterns);
  populateTfmFlashAttentionToLinalgPatterns(patterns);
}

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
  module->setAttr("tfm.weights_layout", b.getDictionaryAttr(offsets));
  module->setAttr("tfm.weights_bytes",
                  b.getI64IntegerAttr(static_cast<int64_t>(layout.totalBytes)));
  module->setAttr("tfm.weights_hash",
                  b.getI64IntegerAttr(static_cast<int64_t>(layout.hash)));
  for (auto global : llvm::make_early_inc_range(module.getOps<GlobalWeightOp>()))
    global.erase();
}

struct ConvertTfmToLinalg
    : mlir::tfm::impl::ConvertTfmToLinalgBase<ConvertTfmToLinalg> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WeightLayout layout = computeWeightLayout(module);
    if (failed(bindWeights(module, layout)))
      return signalPassFailure();
    recordLayout(module, layout);

    ConversionTarget target(getContext());
    target.addIllegalDialect<TfmDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           memref::MemRefDialect,
                           bufferization::BufferizationDialect,
                           func::FuncDialect, scf::SCFDialect,
                           vector::VectorDialect>();
    RewritePatternSet patterns(&getContext());
    populateTfmToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
