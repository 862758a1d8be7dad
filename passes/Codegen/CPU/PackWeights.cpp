//===- PackWeights.cpp - Projection weights as column panels --------------===//
//
// Every tfm.linear / tfm.lm_head becomes a tfm.packed_linear reading its
// weight as column panels, a layout the compiler writes into the weights
// blob at compile time (see tfm.global_weight's `panels`), in the element
// type `weight-type` asks for (f32, f16, bf16).
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/Panels.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Transforms/StackLinears.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUPACKWEIGHTS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Declares (once) the panels of the [rows, columns] `matrix` next to it,
/// named `<matrix>.panels` and built from the same model tensors.
/// The panels are in `element` (null: the matrix's own type).
GlobalWeightOp declarePanels(ModuleOp module, GlobalWeightOp matrix,
                             int64_t width, int64_t group, Type element) {
  std::string name = (matrix.getSymName() + ".panels").str();
  if (auto existing = module.lookupSymbol<GlobalWeightOp>(name))
    return existing;
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  auto panelType = RankedTensorType::get(
      {tfmc::weights::panelCount(rows, width, group), columns, width},
      element ? element : type.getElementType());
  OpBuilder builder(matrix);
  ArrayAttr sources = matrix.getStackedAttr();
  if (!sources)
    sources = builder.getStrArrayAttr({matrix.getSymName()});
  return GlobalWeightOp::create(
      builder, matrix.getLoc(), builder.getStringAttr(name),
      TypeAttr::get(panelType), sources, builder.getUnitAttr());
}

/// Replaces the projection `op` (input, weight, optional bias) by a
/// tfm.packed_linear; leaves it alone when its weight is not a declared
/// matrix.
void packProjection(ModuleOp module, Operation *op, Value input, Value weight,
                    Value bias, int64_t width, int64_t group, Type element) {
  auto read = weight.getDefiningOp<WeightOp>();
  if (!read)
    return;
  auto matrix = module.lookupSymbol<GlobalWeightOp>(read.getNameAttr());
  if (!matrix || matrix.getPanels())
    return;
  GlobalWeightOp panels =
      declarePanels(module, matrix, width, group, element);
  OpBuilder builder(op);
  Value panelRead = WeightOp::create(builder, read.getLoc(), panels.getType(),
                                     panels.getSymName());
  int64_t outputs = cast<RankedTensorType>(weight.getType()).getDimSize(0);
  auto packed = PackedLinearOp::create(builder, op->getLoc(), input, panelRead,
                                       bias, outputs);
  op->replaceAllUsesWith(packed);
  op->erase();
}

struct TfmCpuPackWeights : mlir::tfm::impl::TfmCpuPackWeightsBase<TfmCpuPackWeights> {
  using TfmCpuPackWeightsBase::TfmCpuPackWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (panelWidth < 1) {
      module.emitError()
          << "tfm-cpu-pack-weights: panel-width must be positive, got "
          << static_cast<int64_t>(panelWidth);
      return signalPassFailure();
    }
    if (panelGroup < 1) {
      module.emitError()
          << "tfm-cpu-pack-weights: panel-group must be positive, got "
          << static_cast<int64_t>(panelGroup);
      return signalPassFailure();
    }
    Builder b(&getContext());
    Type element = llvm::StringSwitch<Type>(weightType)
                       .Case("", Type())
                       .Case("f32", b.getF32Type())
                       .Case("f16", b.getF16Type())
                       .Case("bf16", b.getBF16Type())
                       .Default(b.getI1Type());
    if (element == b.getI1Type()) {
      module.emitError() << "tfm-cpu-pack-weights: unknown weight-type '"
                         << weightType << "' (expected f32, f16 or bf16)";
      return signalPassFailure();
    }
    SmallVector<Operation *> projections;
    module.walk([&](Operation *op) {
      if (isa<LinearOp, LMHeadOp>(op))
        projections.push_back(op);
    });
    for (Operation *op : projections) {
      if (auto linear = dyn_cast<LinearOp>(op))
        packProjection(module, op, linear.getInput(), linear.getWeight(),
                       linear.getBias(), panelWidth, panelGroup, element);
      else if (auto head = dyn_cast<LMHeadOp>(op))
        packProjection(module, op, head.getInput(), head.getWeight(), Value(),
                       panelWidth, panelGroup, element);
    }
    eraseUnreadWeights(module);
  }
};

} // namespace
