//===- Passes.td - The Halide code generator's passes ------*- tablegen -*-===//
#ifndef TFM_CODEGEN_HALIDE_PASSES_TD
#define TFM_CODEGEN_HALIDE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmHalideOutlineKernels
    : Pass<"tfm-halide-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Hand the chosen kinds of kernels to the Halide generator";
  let description = [{
    Every tfm op of a kernel kind named in `kinds` becomes a
    `tfm_halide.call` of a `tfm_halide.kernel` that describes it for
    tfmc-halide-gen (docs/halide.md): its static shapes, element types and
    the module's `#tfm.target`, spelled as Halide's target features. Ops
    with the same description share one kernel. The kinds and the ops they
    take:

    - `norm`: `tfm.rms_norm`, `tfm.layer_norm`;
    - `projection`: `tfm.linear` (f32, f16 or bf16 weights, a bias);
    - `lm-head`: `tfm.lm_head`;
    - `attention`: `tfm.attention` over the first keys of head-major
      tensors: a KV cache up to its last query, a sliding window's rolling
      cache (`ring`), an encoder's keys up to its real length (the kernel's
      `keys`); causal, bidirectional or sliding-window masks, ALiBi, T5's
      relative position bias (its buckets' steps in the description), an
      f32 or f16 cache;
    - `positional`: `tfm.rope`, `tfm.embedding`, `tfm.position_embedding`,
      `tfm.sinusoidal_position`;
    - `elementwise`: `tfm.add`, `tfm.mul`, `tfm.silu`, `tfm.relu`,
      `tfm.gelu`; `tfm.mul` of a `tfm.silu` (or tanh `tfm.gelu`) it alone
      reads becomes one SwiGLU (GeGLU) kernel;
    - `moe-routing`: `tfm.moe_route` (the router's product and the
      choice);
    - `moe-experts`: `tfm.moe_experts` (the chosen experts' SwiGLU
      products, weighed and summed).

    Matrices and tables stored in one other type than their f32
    declaration are read as stored: f16 and bf16 as such, GGUF's block
    types as their rows (`#tfm_halide.block_rows`), dequantized in the
    kernel. An op of a named kind that the generator cannot express
    (token-major keys, keys past the first, dynamic rows)
    is an error naming the kind: a kind is never left to the other code
    generator silently.
  }];
  let options = [
    ListOption<"kinds", "kinds", "std::string",
               "The kernel kinds Halide generates: projection, attention, "
               "norm, positional, elementwise, moe-routing, lm-head, "
               "moe-experts">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"hand\"",
           "Who schedules the kernels: hand, adams2019, mullapudi2016 or "
           "li2018">,
  ];
  let dependentDialects = ["mlir::tfm::halide::TfmHalideDialect",
                           "mlir::tensor::TensorDialect"];
}

def TfmHalideLowerCalls : Pass<"tfm-halide-lower-calls", "mlir::ModuleOp"> {
  let summary = "Call the Halide kernels through the runtime's adapter";
  let description = [{
    Each `tfm_halide.call` on buffers becomes a call of
    `tfmrt_halide_call(NAME_argv, NAME_metadata, table)`
    (runtime/halide/HalideCalls.h): the table, on the stack, holds each
    argument in the kernel's order, a buffer as the address of its first
    element, its element size, rank, sizes and strides, an index as its
    value. The adapter builds the `halide_buffer_t`s from it and checks
    them against the kernel's metadata. Each `tfm_halide.kernel` becomes
    the declarations of `NAME_argv` and `NAME_metadata`, and its
    description an entry of the module's `tfm_halide.kernels` dictionary,
    which the backend hands to tfmc-halide-gen.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // TFM_CODEGEN_HALIDE_PASSES_TD
