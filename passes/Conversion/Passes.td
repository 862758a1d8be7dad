//===- Passes.td - Conversions out of the tfm dialect -*- tablegen -*-===//
#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTfmToLinalg : Pass<"convert-tfm-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tfm ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Expresses every tfm op as linalg structured ops on tensors. Weights become
    views into the weights blob: each function that reads weights gains a
    leading `memref<Nxi8>` argument (the blob, N bytes), and each
    `tfm.weight` becomes a `memref.view` at the weight's offset in the layout
    of `tfm.global_weight` declarations (module order, 64-byte aligned),
    wrapped by `bufferization.to_tensor`. The declarations are erased and the
    layout is recorded in the module attributes `tfm.weights_bytes` and
    `tfm.weights_layout` so the driver writes the blob the code expects.
  }];
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
