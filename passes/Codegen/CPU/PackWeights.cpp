//===- PackWeights.cpp - Projection weights as column panels --------------===//
//
// Applies the panel layout that each projection's kernel configuration
// (tfm-cpu-select-kernel-config) chose: every configured tfm.linear /
// tfm.lm_head becomes a tfm_cpu.packed_linear reading its weight as value
// panels (f32, f16, bf16), or a tfm_cpu.quantized_linear over the quants,
// scales (and minimums) of block panels, declared with their
// #tfm_cpu.panels layout: the compiler writes them into the weights blob
// (compiler/weights/SlotContents.h). A token embedding whose table became
// a classifier's panels (a tied one) looks its rows up in them when they
// hold the table's values exactly.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/KQuants.h"
#include "compiler/weights/Panels.h"
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"
#include "passes/Transforms/StackLinears.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUPACKWEIGHTS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;
using tfmc::weights::PanelFormat;
using tfmc::weights::PanelPart;

namespace {

/// Declares (once) the panel declaration `part` of the [rows, columns]
/// `matrix` next to it, named `<matrix><suffix>`, of `type`, built from the
/// same model tensors, in the layout `#tfm_cpu.panels<format, part>`.
GlobalWeightOp declarePanels(ModuleOp module, GlobalWeightOp matrix,
                             StringRef suffix, RankedTensorType type,
                             PanelFormat format, PanelPart part) {
  std::string name = (matrix.getSymName() + suffix).str();
  if (auto existing = module.lookupSymbol<GlobalWeightOp>(name))
    return existing;
  OpBuilder builder(matrix);
  ArrayAttr sources = matrix.getStackedAttr();
  if (!sources)
    sources = builder.getStrArrayAttr({matrix.getSymName()});
  return GlobalWeightOp::create(
      builder, matrix.getLoc(), builder.getStringAttr(name),
      TypeAttr::get(type), sources, StoredAttr(),
      PanelsAttr::get(builder.getContext(), format, part));
}

/// The declaration of the matrix that `weight` reads with tfm.weight, or
/// null when it reads something else or the matrix is already laid out.
GlobalWeightOp unpackedMatrix(ModuleOp module, Value weight) {
  auto read = weight.getDefiningOp<WeightOp>();
  if (!read)
    return {};
  auto matrix = module.lookupSymbol<GlobalWeightOp>(read.getNameAttr());
  if (!matrix || matrix.getLayoutAttr())
    return {};
  return matrix;
}

/// A read of `global` where `op` is.
Value readWeight(OpBuilder &builder, Location loc, GlobalWeightOp global) {
  return WeightOp::create(builder, loc, global.getType(), global.getSymName());
}

/// The element type of value panels of `format`.
Type valueType(Builder &b, PanelFormat format) {
  switch (format) {
  case PanelFormat::f16:
    return b.getF16Type();
  case PanelFormat::bf16:
    return b.getBF16Type();
  default:
    return b.getF32Type();
  }
}

/// The declarations a matrix was packed into: its value panels (`quants`
/// alone), or the quants, scales, optional minimums and (kquantx4,
/// kquant4x4) super-block factors of a block format.
struct PackedMatrix {
  PanelFormat format;
  GlobalWeightOp quants, scales, mins, factors;
};

/// Replaces the projection `op` (input, weight over `matrix`, optional
/// bias) by the tfm_cpu projection over the panels `config` chooses; returns
/// the panels' declarations.
PackedMatrix packProjection(ModuleOp module, Operation *op,
                            GlobalWeightOp matrix, Value input, Value weight,
                            Value bias, int64_t width, int64_t group,
                            ProjectionConfigAttr config) {
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  int64_t panels = tfmc::weights::panelCount(rows, width, group);
  PanelFormat format = config.getPanels();
  OpBuilder builder(op);
  Location loc = weight.getLoc();
  Operation *packed;
  PackedMatrix declared{format, {}, {}, {}, {}};
  if (!tfmc::weights::isBlockFormat(format)) {
    auto panelType = RankedTensorType::get({panels, columns, width},
                                           valueType(builder, format));
    declared.quants = declarePanels(module, matrix, ".panels", panelType,
                                    format, PanelPart::quants);
    packed = PackedLinearOp::create(builder, op->getLoc(), input,
                                    readWeight(builder, loc, declared.quants),
                                    bias, rows, config);
  } else {
    SmallVector<tfmc::weights::ElementType> stored = matrix.getStoredTypes();
    int64_t blockValues = tfmc::weights::blockValues(format, stored);
    int64_t blocks = columns / blockValues;
    // GGUF's Q8_0 / Q4_0 keep their f16 scales; the k-quants' are f32
    // products, or GGUF's integers with per-super-block factors.
    Type scale = blockScaleType(builder.getContext(), format);
    auto quantsType = RankedTensorType::get(
        {panels, blocks, blockValues / tfmc::weights::valuesPerQuant(format),
         width},
        builder.getIntegerType(tfmc::weights::quantBits(format)));
    auto scalesType = RankedTensorType::get({panels, blocks, width}, scale);
    declared.quants = declarePanels(module, matrix, ".quants", quantsType,
                                    format, PanelPart::quants);
    declared.scales = declarePanels(module, matrix, ".scales", scalesType,
                                    format, PanelPart::scales);
    Value quants = readWeight(builder, loc, declared.quants);
    Value scales = readWeight(builder, loc, declared.scales);
    // A Q6_K matrix's minimums are all zero: kquant leaves them out.
    Value mins;
    if (tfmc::weights::hasMins(format) &&
        !tfmc::weights::hasZeroMins(format, stored)) {
      declared.mins = declarePanels(module, matrix, ".mins", scalesType, format,
                                    PanelPart::mins);
      mins = readWeight(builder, loc, declared.mins);
    }
    // Each row's d (and dmin) per super-block of 256 values, which the
    // integer scales (and minimums) multiply.
    Value factors;
    if (tfmc::weights::hasSuperBlockFactors(format)) {
      auto factorsType = RankedTensorType::get(
          {panels, columns / tfmc::weights::kSuperBlockElements, mins ? 2 : 1,
           width},
          builder.getF32Type());
      declared.factors = declarePanels(module, matrix, ".factors", factorsType,
                                       format, PanelPart::factors);
      factors = readWeight(builder, loc, declared.factors);
    }
    packed =
        QuantizedLinearOp::create(builder, op->getLoc(), input, quants, scales,
                                  mins, factors, bias, rows, config);
  }
  op->replaceAllUsesWith(packed);
  op->erase();
  return declared;
}

/// Makes each tfm.embedding whose table a classifier packed (a tied one)
/// look its rows up in those panels, so that the table itself is no longer
/// read and the blob holds the matrix once. Where `--weights` converted the
/// classifier (f32 to q8_0, ...), the lookup reads the converted values, as
/// a GGUF file's quantized token table is read. `packedOf` maps a matrix's
/// name to its panels.
void lookUpInPanels(ModuleOp module,
                    const llvm::DenseMap<StringAttr, PackedMatrix> &packedOf) {
  SmallVector<EmbeddingOp> lookups;
  module.walk([&](EmbeddingOp lookup) { lookups.push_back(lookup); });
  for (EmbeddingOp lookup : lookups) {
    auto read = lookup.getTable().getDefiningOp<WeightOp>();
    if (!read)
      continue;
    auto packed = packedOf.find(read.getNameAttr().getAttr());
    if (packed == packedOf.end())
      continue;
    const PackedMatrix &panels = packed->second;
    OpBuilder builder(lookup);
    Location loc = read.getLoc();
    auto readIf = [&](GlobalWeightOp global) -> Value {
      return global ? readWeight(builder, loc, global) : Value();
    };
    int64_t vocab = cast<RankedTensorType>(read.getType()).getDimSize(0);
    auto replacement = PanelEmbeddingOp::create(
        builder, lookup.getLoc(), lookup.getTokens(), readIf(panels.quants),
        readIf(panels.scales), readIf(panels.mins), readIf(panels.factors),
        PanelsAttr::get(builder.getContext(), panels.format, PanelPart::quants),
        vocab, lookup.getScaleAttr());
    lookup.replaceAllUsesWith(replacement.getResult());
    lookup.erase();
  }
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
    SmallVector<Operation *> projections;
    module.walk([&](Operation *op) {
      if (isa<LinearOp, LMHeadOp>(op) && getProjectionConfig(op))
        projections.push_back(op);
    });
    llvm::DenseMap<StringAttr, PackedMatrix> packedOf;
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
        bias = head.getBias();
      }
      GlobalWeightOp matrix = unpackedMatrix(module, weight);
      if (!matrix) {
        op->emitOpError() << "has a kernel configuration but its weight is "
                             "no declared matrix to pack";
        return signalPassFailure();
      }
      packedOf[matrix.getSymNameAttr()] =
          packProjection(module, op, matrix, input, weight, bias, panelWidth,
                         panelGroup, getProjectionConfig(op));
    }
    lookUpInPanels(module, packedOf);
    eraseUnreadWeights(module);
  }
};

} // namespace
