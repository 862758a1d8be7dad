//===- SelectKernelConfig.cpp - Choose how each kernel is computed --------===//
//
// Every choice the CPU code generation makes per projection and attention,
// made once, from the module's #tfm.target and the options: the panel
// layout of the weights, how the kernel reads its inputs, its register
// tile, the dot product instruction its products become, and its
// prefetches. The passes after this one read the choice
// (#tfm_cpu.projection, #tfm_cpu.attention) and apply it; a lit test per
// target shows the choices (tfm-cpu-select-kernel-config.mlir).
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/PanelLayout.h"
#include "passes/Codegen/CPU/CpuTargetFacts.h"
#include "passes/Codegen/CPU/IR/KernelConfig.h"
#include "passes/Codegen/CPU/Passes.h"

#include "dialect/TfmContracts.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUSELECTKERNELCONFIG
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::cpu;
using tfmc::weights::ElementType;
using tfmc::weights::PanelFormat;

namespace {

/// The declaration of the matrix that `weight` reads with tfm.weight, or
/// null when it reads something else or a weight already laid out.
GlobalWeightOp declaredMatrix(ModuleOp module, Value weight) {
  auto read = weight.getDefiningOp<WeightOp>();
  if (!read)
    return {};
  auto matrix = module.lookupSymbol<GlobalWeightOp>(read.getNameAttr());
  if (!matrix || matrix.getLayoutAttr())
    return {};
  return matrix;
}

/// The panels of `matrix` when no weight type is asked for: the type the
/// model file stores it in when the kernels read that type (f16, bf16,
/// Q8_0, Q4_0; Q4_K as kquant4, the other k-quants and stacks of k-quants
/// of different kinds as kquant), else the matrix's own type.
PanelFormat storedPanels(GlobalWeightOp matrix) {
  Type declared = cast<RankedTensorType>(matrix.getType()).getElementType();
  PanelFormat own = declared.isF16()    ? PanelFormat::f16
                    : declared.isBF16() ? PanelFormat::bf16
                                        : PanelFormat::f32;
  SmallVector<ElementType> stored = matrix.getStoredTypes();
  if (stored.empty())
    return own;
  if (llvm::all_equal(stored)) {
    if (stored.front() == ElementType::F16)
      return PanelFormat::f16;
    if (stored.front() == ElementType::BF16)
      return PanelFormat::bf16;
  }
  return tfmc::weights::storedBlockFormat(stored).value_or(own);
}

/// The panels of element type `type` (a conversion target).
PanelFormat askedPanels(ElementType type) {
  switch (type) {
  case ElementType::Q8_0:
    return PanelFormat::q8_0;
  case ElementType::Q4_0:
    return PanelFormat::q4_0;
  default:
    return *tfmc::weights::valuePanelFormat(type);
  }
}

struct TfmCpuSelectKernelConfig
    : mlir::tfm::impl::TfmCpuSelectKernelConfigBase<TfmCpuSelectKernelConfig> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &message) {
      module.emitError() << "tfm-cpu-select-kernel-config: " << message;
      signalPassFailure();
    };
    if (accumulators < 0)
      return fail("accumulators must not be negative, got " +
                  Twine(static_cast<int64_t>(accumulators)));
    if (blockKeys < 1)
      return fail("block-keys must be positive, got " +
                  Twine(static_cast<int64_t>(blockKeys)));
    if (streamPrefetchDistance < 0 || cachePrefetchDistance < 0)
      return fail("prefetch distances must not be negative");
    facts = getCpuTargetFacts(getTarget(module));
    MLIRContext *context = &getContext();
    module.walk([&](Operation *op) {
      Value weight;
      if (auto linear = dyn_cast<LinearOp>(op))
        weight = linear.getWeight();
      else if (auto head = dyn_cast<LMHeadOp>(op))
        weight = head.getWeight();
      else if (isa<AttentionOp>(op))
        return setKernelConfig(op,
                               AttentionConfigAttr::get(context, blockKeys,
                                                        cachePrefetchDistance));
      else
        return;
      if (GlobalWeightOp matrix = declaredMatrix(module, weight))
        setKernelConfig(op, projectionConfig(matrix));
    });
  }

  /// The configuration of a projection over `matrix`.
  ProjectionConfigAttr projectionConfig(GlobalWeightOp matrix) {
    auto type = cast<RankedTensorType>(matrix.getType());
    int64_t columns = type.getDimSize(1);
    PanelFormat panels =
        weights.type ? askedPanels(*weights.type) : storedPanels(matrix);
    // A matrix whose rows are not whole blocks cannot take a block format
    // (docs/weight-types.md).
    if (columns % tfmc::weights::blockValues(panels, matrix.getStoredTypes()) !=
        0)
      panels = PanelFormat::f32;
    // The defaults for int8 inputs: Q8_0's and Q4_0's byte quad kernels
    // where the target has VNNI, Q4_0's nibble pairs (on Q4_0's own panels)
    // where it has AVX2, which is faster there than the quads without
    // VNNI, and the k-quants' quads where it has either (with AVX2 alone
    // through vpmaddubsw, faster than their f32-input kernels there:
    // docs/weight-types.md). Q8_0 and the k-quants take the quads on any
    // target when asked (their f32-input kernels are the alternative); Q4_0
    // keeps its nibble pairs without VNNI.
    bool quadInputs = int8Inputs.value.value_or(facts.byteQuadDotLanes != 0);
    bool pairInputs = int8Inputs.value.value_or(facts.avx2);
    bool kquantInputs =
        int8Inputs.value.value_or(facts.byteQuadDotLanes != 0 || facts.avx2);
    bool takesQuads = tfmc::weights::isKQuantFormat(panels)
                          ? kquantInputs
                          : quadInputs && (panels != PanelFormat::q4_0 ||
                                           facts.byteQuadDotLanes);
    if (takesQuads)
      panels = tfmc::weights::byteQuadFormat(panels).value_or(panels);

    InputScheme inputs = InputScheme::f32;
    DotInstruction dot = DotInstruction::none;
    if (tfmc::weights::holdsByteQuads(panels)) {
      inputs = InputScheme::int8;
      if (facts.byteQuadDotLanes == 16)
        dot = DotInstruction::vpdpbusd16;
      else if (facts.byteQuadDotLanes == 8)
        dot = DotInstruction::vpdpbusd8;
      else if (facts.avx2 && tfmc::weights::isKQuantFormat(panels))
        dot = DotInstruction::vpmaddubsw;
    } else if (panels == PanelFormat::q4_0 && pairInputs) {
      inputs = InputScheme::int8;
      if (facts.avx2)
        dot = DotInstruction::vpmaddubsw;
    } else if (panels == PanelFormat::bf16 && bf16Inputs && columns % 2 == 0) {
      inputs = InputScheme::bf16;
      if (facts.avx512bf16)
        dot = DotInstruction::vdpbf16ps;
    }
    int64_t tile = accumulators ? int64_t(accumulators) : facts.accumulators;
    return ProjectionConfigAttr::get(&getContext(), panels, inputs, tile, dot,
                                     streamPrefetchDistance, facts.amdZen);
  }

  CpuTargetFacts facts;
};

} // namespace
