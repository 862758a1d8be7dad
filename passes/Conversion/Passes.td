//===- Passes.td - Conversions out of the tfm dialect -*- tablegen -*-===//
#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTfmToLinalg : Pass<"convert-tfm-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tfm ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Expresses every tfm op of the network as linalg structured ops on
    tensors, choosing nothing a target would: attention becomes one
    destination-style `tfm.attention_kernel` (each target tiles or
    decomposes it), and weights stay `tfm.weight` reads of their
    `tfm.global_weight` declarations (a target binds them to its storage,
    e.g. `tfm-cpu-bind-weights`).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
  let options = [
    Option<"int8Inputs", "int8-inputs", "bool", /*default=*/"false",
           "Q4_0 projections quantize their inputs to int8 per block of 32 "
           "and sum integer products (llama.cpp's scheme; see "
           "docs/weight-types.md)">,
    Option<"bf16Inputs", "bf16-inputs", "bool", /*default=*/"false",
           "Projections over bf16 panels round their inputs to bf16 and sum "
           "the products of pairs of input features (AVX512_BF16's dot "
           "product; see docs/weight-types.md)">,
  ];
}

#endif // TFM_CONVERSION_PASSES_TD
