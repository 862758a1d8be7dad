//===- PackWeights.cpp - Projection weights as column panels --------------===//
//
// Every tfm.linear / tfm.lm_head becomes a tfm.packed_linear reading its
// weight as column panels, a layout the compiler writes into the weights
// blob at compile time (see tfm.global_weight's `panels`), in the element
// type `weight-type` asks for (f32, f16, bf16), by default the type the model
// file stores the matrix in (its `stored`); with q8_0 / q4_0 it becomes a
// tfm.quantized_linear over block-quantized panels instead.
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

/// The declaration of the matrix that `weight` reads with tfm.weight, or
/// null when it reads something else or the matrix is already panels.
GlobalWeightOp unpackedMatrix(ModuleOp module, Value weight) {
  auto read = weight.getDefiningOp<WeightOp>();
  if (!read)
    return {};
  auto matrix = module.lookupSymbol<GlobalWeightOp>(read.getNameAttr());
  if (!matrix || matrix.getPanels())
    return {};
  return matrix;
}

/// Replaces the projection `op` (input, weight, optional bias) by a
/// tfm.packed_linear; leaves it alone when its weight is not a declared
/// matrix.
void packProjection(ModuleOp module, Operation *op, Value input, Value weight,
                    Value bias, int64_t width, int64_t group, Type element) {
  GlobalWeightOp matrix = unpackedMatrix(module, weight);
  if (!matrix)
    return;
  GlobalWeightOp panels =
      declarePanels(module, matrix, width, group, element);
  OpBuilder builder(op);
  Value panelRead = WeightOp::create(builder, weight.getLoc(), panels.getType(),
                                     panels.getSymName());
  int64_t outputs = cast<RankedTensorType>(weight.getType()).getDimSize(0);
  auto packed = PackedLinearOp::create(builder, op->getLoc(), input, panelRead,
                                       bias, outputs);
  op->replaceAllUsesWith(packed);
  op->erase();
}

/// Declares (once) the `format` quants or scales of the [rows, columns]
/// `matrix` next to it, named `<matrix>.<suffix>` (see tfm.global_weight's
/// `block_quant`).
GlobalWeightOp declareBlockPanels(ModuleOp module, GlobalWeightOp matrix,
                                  int64_t width, int64_t group,
                                  StringRef format, bool scales) {
  std::string name =
      (matrix.getSymName() + (scales ? ".scales" : ".quants")).str();
  if (auto existing = module.lookupSymbol<GlobalWeightOp>(name))
    return existing;
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t rows = type.getDimSize(0), blocks = type.getDimSize(1) / 32;
  int64_t panels = tfmc::weights::panelCount(rows, width, group);
  Builder b(module.getContext());
  RankedTensorType panelType =
      scales ? RankedTensorType::get({panels, blocks, width}, b.getF16Type())
             : RankedTensorType::get(
                   {panels, blocks, format == "q4_0" ? 16 : 32, width},
                   b.getI8Type());
  OpBuilder builder(matrix);
  ArrayAttr sources = matrix.getStackedAttr();
  if (!sources)
    sources = builder.getStrArrayAttr({matrix.getSymName()});
  auto global = GlobalWeightOp::create(builder, matrix.getLoc(), name,
                                       panelType, sources, /*panels=*/true);
  global.setBlockQuant(format);
  global.setBlockScales(scales);
  return global;
}

/// Replaces the projection `op` of `input` by `weight` (+ `bias`) with a
/// tfm.quantized_linear over its `format` panels. A matrix whose rows are
/// not whole blocks of 32 cannot take the format: it gets f32 panels
/// instead (docs/weight-types.md). Leaves `op` alone when its weight is not
/// a declared matrix.
void packProjectionQuantized(ModuleOp module, Operation *op, Value input,
                             Value weight, Value bias, int64_t width,
                             int64_t group, StringRef format) {
  GlobalWeightOp matrix = unpackedMatrix(module, weight);
  if (!matrix)
    return;
  auto type = cast<RankedTensorType>(matrix.getType());
  if (type.getDimSize(1) % 32 != 0)
    return packProjection(module, op, input, weight, bias, width, group,
                          Builder(module.getContext()).getF32Type());
  GlobalWeightOp quants =
      declareBlockPanels(module, matrix, width, group, format, false);
  GlobalWeightOp scales =
      declareBlockPanels(module, matrix, width, group, format, true);
  OpBuilder builder(op);
  Value quantsRead = WeightOp::create(builder, weight.getLoc(), quants.getType(),
                                      quants.getSymName());
  Value scalesRead = WeightOp::create(builder, weight.getLoc(), scales.getType(),
                                      scales.getSymName());
  auto packed = QuantizedLinearOp::create(builder, op->getLoc(), input,
                                          quantsRead, scalesRead, bias, format,
                                          type.getDimSize(0));
  op->replaceAllUsesWith(packed);
  op->erase();
}

/// The panel element type that `weightType` names ("": the matrix's own
/// type; i8 for the block formats q8_0 / q4_0), or null for an unknown name.
Type panelElementType(Builder &b, StringRef weightType) {
  return llvm::StringSwitch<Type>(weightType)
      .Case("", NoneType::get(b.getContext()))
      .Case("f32", b.getF32Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("q8_0", b.getI8Type())
      .Case("q4_0", b.getI8Type())
      .Default(Type());
}

/// The type a projection reading `weight` keeps when no weight-type is asked
/// for: the type the model file stores its matrix in, when the kernels read
/// it (f16, bf16, q8_0, q4_0); else "" (the matrix's own type; the k-quants
/// are dequantized exactly to it).
StringRef storedPanelType(ModuleOp module, Value weight) {
  GlobalWeightOp matrix = unpackedMatrix(module, weight);
  if (!matrix)
    return "";
  StringRef stored = matrix.getStored();
  return llvm::is_contained({"f16", "bf16", "q8_0", "q4_0"}, stored) ? stored
                                                                     : "";
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
    if (!panelElementType(b, weightType)) {
      module.emitError() << "tfm-cpu-pack-weights: unknown weight-type '"
                         << weightType
                         << "' (expected f32, f16, bf16, q8_0 or q4_0)";
      return signalPassFailure();
    }
    SmallVector<Operation *> projections;
    module.walk([&](Operation *op) {
      if (isa<LinearOp, LMHeadOp>(op))
        projections.push_back(op);
    });
    for (Operation *op : projections) {
      Value input, weight, bias;
      if (auto linear = dyn_cast<LinearOp>(op)) {
        input = linear.getInput();
        weight = linear.getWeight();
        bias = linear.getBias();
      } else {
        auto head = cast<LMHeadOp>(op);
        input = head.getInput();
        weight = head.getWeight();
      }
      StringRef type = weightType.empty() ? storedPanelType(module, weight)
                                          : StringRef(weightType);
      Type element = panelElementType(b, type);
      if (element == b.getI8Type())
        packProjectionQuantized(module, op, input, weight, bias, panelWidth,
                                panelGroup, type);
      else
        packProjection(module, op, input, weight, bias, panelWidth,
                       panelGroup, isa<NoneType>(element) ? Type() : element);
    }
    eraseUnreadWeights(module);
  }
};

} // namespace
