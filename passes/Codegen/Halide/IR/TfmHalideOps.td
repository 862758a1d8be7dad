//===- TfmHalideOps.td - Halide kernels and their calls ----*- tablegen -*-===//
#ifndef TFM_HALIDE_OPS_TD
#define TFM_HALIDE_OPS_TD

include "passes/Codegen/Halide/IR/TfmHalideBase.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "dialect/TfmWeightAttrs.td"

def TfmHalide_BlockRowsAttr : TfmHalide_Attr<"BlockRows", "block_rows",
    [DeclareAttrInterfaceMethods<Tfm_WeightLayoutAttrInterface,
                                 ["getBlockRows"]>]> {
  let summary = "A matrix kept in the blob as GGUF stores its blocks";
  let description = [{
    The layout of a `[rows, columns]` weight that a Halide kernel reads
    quantized (docs/halide.md): the matrix's rows as `type`'s blocks (Q8_0,
    Q4_0, Q4_K, Q5_K or Q6_K), one row after the other, as the GGUF file
    holds them; the declaration is `[rows, row bytes]` i8. The kernel
    dequantizes each block where it multiplies it.
    ```mlir
    tfm.global_weight @wo.q4_0 : tensor<64x36xi8>
        {layout = #tfm_halide.block_rows<q4_0>, stacked = ["wo"], stored = #tfm.stored<q4_0>}
    ```
  }];
  let parameters = (ins "::tfmc::weights::ElementType":$type);
  let assemblyFormat = "`<` $type `>`";
  let genVerifyDecl = 1;
}

def TfmHalide_KernelOp : TfmHalide_Op<"kernel", [Symbol]> {
  let summary = "A kernel that tfmc-halide-gen generates";
  let description = [{
    Declares the kernel `sym_name` by its description, the JSON of one
    kernel as tfmc-halide-gen reads it (docs/halide.md): its kind, static
    shapes, element types and target. The description's `name` is the
    symbol, the C function the generated object defines.
    ```mlir
    tfm_halide.kernel @norm_0 {kind = "norm", description = "{\"kernels\": [...]}"}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kind,
                       StrAttr:$description);
  let assemblyFormat = "$sym_name attr-dict";
  let hasVerifier = 1;
}

def TfmHalide_CallOp : TfmHalide_Op<"call", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "bufferize"]>]> {
  let summary = "Calls a generated Halide kernel";
  let description = [{
    Calls `kernel` with `inputs` and `outputs` in the order of its C ABI
    (docs/halide.md, one table per kind): tensors or buffers in tfmc's
    row-major layout, and index scalars for its `int32_t` arguments (the
    position `pos`). The kernel writes every output whole and reads none:
    on tensors the results are the outputs' new values (destination
    style); on buffers the op has no results. Bufferization gives it
    row-major dense buffers, copying a strided view in (an input) or out
    (an output); the adapter checks each buffer's shape against the
    kernel's own.
    ```mlir
    %y = tfm_halide.call @norm_0(%x, %w : tensor<1x64xf32>, tensor<64xf32>)
        outs(%init : tensor<1x64xf32>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Variadic<AnyType>:$inputs,
                       Variadic<AnyShaped>:$outputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $kernel `(` ($inputs^ `:` type($inputs))? `)`
    `outs` `(` $outputs `:` type($outputs) `)` attr-dict
    (`->` type($results)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
  }];
}

#endif // TFM_HALIDE_OPS_TD
