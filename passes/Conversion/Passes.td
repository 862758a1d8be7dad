//===- Passes.td - Conversions out of the tfm dialect -*- tablegen -*-===//
#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTfmToLinalg : Pass<"convert-tfm-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tfm ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Expresses every tfm op of the network as linalg structured ops on
    tensors, choosing nothing a target would: projections are contractions
    over their weights as declared, attention becomes one destination-style
    `tfm.attention_kernel` (each target tiles or decomposes it; attributes
    a target set on the `tfm.attention`, such as its kernel configuration,
    stay on the kernel), and weights stay `tfm.weight` reads of their
    `tfm.global_weight` declarations (a target binds them to its storage,
    e.g. `tfm-cpu-bind-weights`). Ops of other dialects, such as the ones a
    target packed its weights for (`tfm_cpu.packed_linear`), are left to
    that target.

    A mixture of experts has two forms (`moe`): `loops` over tokens and
    choices around products of the chosen experts' weight slices (the
    CPU's: the loops run on the host), or `gathers`, every step a
    structured op over tokens and choices whose body gathers the chosen
    experts' rows (a GPU's: each op a kernel). Both read only the chosen
    experts' rows and compute the same choices and sums.
  }];
  let options = [
    Option<"moe", "moe", "::mlir::tfm::MoEForm",
           /*default=*/"::mlir::tfm::MoEForm::loops",
           "the form of tfm.moe_route and tfm.moe_experts: loops or gathers",
           [{::mlir::tfm::moeFormValues()}]>,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

#endif // TFM_CONVERSION_PASSES_TD
