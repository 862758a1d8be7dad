//===- PackWeights.cpp - Projection weights as column panels --------------===//
//
// Every tfm.linear / tfm.lm_head becomes a tfm.packed_linear reading its
// weight as column panels, a layout the compiler writes into the weights
// blob at compile time (see tfm.global_weight's `panels`), in the element
// type `weight-type` asks for (f32, f16, bf16), by default the type the model
// file stores the matrix in (its `stored`); with q8_0 / q4_0, and by default
// for the k-quants (kquant, kquant4), it becomes a tfm.quantized_linear over
// block-quantized panels instead.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/Panels.h"
#include "dialect/TfmContracts.h"
#include "passes/Codegen/CPU/ByteQuadDot.h"
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
  GlobalWeightOp panels = declarePanels(module, matrix, width, group, element);
  OpBuilder builder(op);
  Value panelRead = WeightOp::create(builder, weight.getLoc(), panels.getType(),
                                     panels.getSymName());
  int64_t outputs = cast<RankedTensorType>(weight.getType()).getDimSize(0);
  auto packed = PackedLinearOp::create(builder, op->getLoc(), input, panelRead,
                                       bias, outputs);
  op->replaceAllUsesWith(packed);
  op->erase();
}

/// The panel declarations of a block-quantized matrix.
enum class BlockPart { Quants, Scales, Mins };

/// Declares (once) the `format` quants, scales or mins of the [rows,
/// columns] `matrix` next to it, named `<matrix>.<part>`, in blocks of
/// `blockValues` columns (see tfm.global_weight's `block_quant`).
GlobalWeightOp declareBlockPanels(ModuleOp module, GlobalWeightOp matrix,
                                  int64_t width, int64_t group,
                                  StringRef format, int64_t blockValues,
                                  BlockPart part) {
  StringRef suffix = part == BlockPart::Quants   ? ".quants"
                     : part == BlockPart::Scales ? ".scales"
                                                 : ".mins";
  std::string name = (matrix.getSymName() + suffix).str();
  if (auto existing = module.lookupSymbol<GlobalWeightOp>(name))
    return existing;
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t rows = type.getDimSize(0), blocks = type.getDimSize(1) / blockValues;
  int64_t panels = tfmc::weights::panelCount(rows, width, group);
  Builder b(module.getContext());
  // GGUF's Q8_0 / Q4_0 keep their f16 scales; the k-quants' are f32
  // products.
  Type scale =
      blockFormatHasMins(format) ? Type(b.getF32Type()) : b.getF16Type();
  RankedTensorType panelType =
      part == BlockPart::Quants
          ? RankedTensorType::get(
                {panels, blocks,
                 blockValues / blockFormatValuesPerQuant(format), width},
                blockFormatQuantType(module.getContext(), format))
          : RankedTensorType::get({panels, blocks, width}, scale);
  OpBuilder builder(matrix);
  ArrayAttr sources = matrix.getStackedAttr();
  if (!sources)
    sources = builder.getStrArrayAttr({matrix.getSymName()});
  auto global = GlobalWeightOp::create(builder, matrix.getLoc(), name,
                                       panelType, sources, /*panels=*/true);
  global.setBlockQuant(format);
  global.setBlockScales(part == BlockPart::Scales);
  global.setBlockMins(part == BlockPart::Mins);
  return global;
}

/// Values per block of `format` for `matrix`: 32 for Q8_0, Q4_0 and
/// kquant4; for kquant, 32 when the file stores the matrix in Q5_K
/// (sub-blocks of 32), 16 for Q6_K and for stacks of k-quants of different
/// kinds.
int64_t blockValuesOf(StringRef format, GlobalWeightOp matrix) {
  if (format != "kquant")
    return 32;
  return matrix.getStored() == "q5_k" ? 32 : 16;
}

/// Replaces the projection `op` of `input` by `weight` (+ `bias`) with a
/// tfm.quantized_linear over its `format` panels. A matrix whose rows are
/// not whole blocks cannot take the format: it gets f32 panels instead
/// (docs/weight-types.md). Leaves `op` alone when its weight is not a
/// declared matrix.
void packProjectionQuantized(ModuleOp module, Operation *op, Value input,
                             Value weight, Value bias, int64_t width,
                             int64_t group, StringRef format) {
  GlobalWeightOp matrix = unpackedMatrix(module, weight);
  if (!matrix)
    return;
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t blockValues = blockValuesOf(format, matrix);
  if (type.getDimSize(1) % blockValues != 0)
    return packProjection(module, op, input, weight, bias, width, group,
                          Builder(module.getContext()).getF32Type());
  OpBuilder builder(op);
  auto read = [&](BlockPart part) -> Value {
    GlobalWeightOp panels = declareBlockPanels(module, matrix, width, group,
                                               format, blockValues, part);
    return WeightOp::create(builder, weight.getLoc(), panels.getType(),
                            panels.getSymName());
  };
  Value quants = read(BlockPart::Quants);
  Value scales = read(BlockPart::Scales);
  // A Q6_K matrix's minimums are all zero: kquant leaves them out.
  bool zeroMins = format == "kquant" && matrix.getStored() == "q6_k";
  Value mins =
      blockFormatHasMins(format) && !zeroMins ? read(BlockPart::Mins) : Value();
  auto packed =
      QuantizedLinearOp::create(builder, op->getLoc(), input, quants, scales,
                                mins, bias, format, type.getDimSize(0));
  op->replaceAllUsesWith(packed);
  op->erase();
}

/// The panel element type of `panelType` ("": the matrix's own type; i8
/// for the block formats q8_0, q4_0, kquant and kquant4), or null for an
/// unknown name.
Type panelElementType(Builder &b, StringRef panelType) {
  return llvm::StringSwitch<Type>(panelType)
      .Case("", NoneType::get(b.getContext()))
      .Case("f32", b.getF32Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Cases({"q8_0", "q4_0", "kquant", "kquant4"}, b.getI8Type())
      .Default(Type());
}

/// The panel type a projection reading `weight` keeps when no weight-type
/// is asked for: the type the model file stores its matrix in, when the
/// kernels read it (f16, bf16, q8_0, q4_0; Q4_K as kquant4, the other
/// k-quants and stacks of different kinds as kquant); else "" (the
/// matrix's own type).
StringRef storedPanelType(ModuleOp module, Value weight) {
  GlobalWeightOp matrix = unpackedMatrix(module, weight);
  if (!matrix)
    return "";
  StringRef stored = matrix.getStored();
  if (stored == "q4_k")
    return "kquant4";
  if (llvm::is_contained({"q5_k", "q6_k", "kquant"}, stored))
    return "kquant";
  return llvm::is_contained({"f16", "bf16", "q8_0", "q4_0"}, stored) ? stored
                                                                     : "";
}

struct TfmCpuPackWeights
    : mlir::tfm::impl::TfmCpuPackWeightsBase<TfmCpuPackWeights> {
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
    // The kquant layouts hold the file's k-quants; nothing is quantized to
    // them.
    if (!panelElementType(b, weightType) || blockFormatHasMins(weightType)) {
      module.emitError() << "tfm-cpu-pack-weights: unknown weight-type '"
                         << weightType
                         << "' (expected f32, f16, bf16, q8_0 or q4_0)";
      return signalPassFailure();
    }
    bool byteQuadDotTarget = byteQuadDotLanes(getTarget(module)) != 0;
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
      // The int8-input kernels that sum byte quads (vpdpbusd) read four
      // bytes of a row at a time: Q8_0's always; Q4_0's where the target
      // has the instruction, since without it convert-tfm-to-linalg's
      // nibble pair kernel (vpmaddubsw) over Q4_0's own layout is faster.
      if (int8Inputs && type == "q8_0")
        type = "q8_0x4";
      if (int8Inputs && type == "q4_0" && byteQuadDotTarget)
        type = "q4_0x4";
      if (element == b.getI8Type())
        packProjectionQuantized(module, op, input, weight, bias, panelWidth,
                                panelGroup, type);
      else
        packProjection(module, op, input, weight, bias, panelWidth, panelGroup,
                       isa<NoneType>(element) ? Type() : element);
    }
    eraseUnreadWeights(module);
  }
};

} // namespace
