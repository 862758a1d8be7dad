//===- TfmWeightAttrs.td - Weight types and layouts --------*- tablegen -*-===//
//
// The network says what each weight is: the element types its model
// tensors are stored in (`#tfm.stored<...>`, one enum shared with
// compiler/weights, ElementType.td). How a backend lays a weight out in the
// blob is that backend's attribute (the CPU's `#tfm_cpu.panels<...>`,
// written by tfm-cpu-pack-weights), which tfm.global_weight carries as its
// `layout` through WeightLayoutAttrInterface, so that the package writer
// materialises any backend's layout without knowing the backend.
//
//===----------------------------------------------------------------------===//
#ifndef TFM_WEIGHT_ATTRS_TD
#define TFM_WEIGHT_ATTRS_TD

include "dialect/TfmAttrs.td"

def Tfm_WeightLayoutAttrInterface
    : AttrInterface<"WeightLayoutAttrInterface"> {
  let cppNamespace = "::mlir::tfm";
  let description = [{
    A backend's layout of a weight in the weights blob, set as
    `tfm.global_weight`'s `layout` by the pass that chooses it (the CPU's
    `tfm-cpu-pack-weights` writes `#tfm_cpu.panels<...>`, the Halide code
    generator `#tfm_halide.block_rows<...>`). The package writer reads the
    layout through this interface, as one of the layouts compiler/weights
    can materialise: a panel layout (PanelLayout.h) or a GGUF block type's
    rows.
  }];
  let methods = [
    InterfaceMethod<[{
        The panel declaration this layout makes of a projection's matrix:
        its format and part (compiler/weights/PanelLayout.h); none for a
        layout of another kind.
      }], "std::optional<::tfmc::weights::PanelLayout>", "getPanelLayout",
      (ins), "", [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The GGUF block type (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K) whose bytes this
        layout holds, the `[rows, columns]` matrix row by row as GGUF
        stores it (`[rows, row bytes]` i8): a model tensor stored in that
        type is copied, another quantized (Q8_0, Q4_0 only); none for a
        layout of another kind.
      }], "std::optional<::tfmc::weights::ElementType>", "getBlockRows",
      (ins), "", [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        Checks the declared type of a weight in this layout; reports what is
        wrong through `emitError`.
      }], "::mlir::LogicalResult", "verifyDeclaredType",
      (ins "::mlir::RankedTensorType":$type,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
  ];
}

def Tfm_StoredAttr : Tfm_Attr<"Stored", "stored"> {
  let summary = "The element types the model file stores a weight's tensors in";
  let description = [{
    Set by the builder on a `tfm.global_weight` whose model tensor the file
    stores in another element type than the network declares (f16 tensors
    of an f32 network, GGUF blocks), and kept by the passes that stack
    declarations: one type when every stacked tensor has it, else one per
    stacked tensor, in order (a Q4_K_M file's Q/K/V: Q4_K, Q4_K, Q6_K). The
    names are those of compiler/weights' `ElementType` (ElementType.td).
    ```mlir
    tfm.global_weight @wq : tensor<288x288xf32> {stored = #tfm.stored<q8_0>}
    tfm.global_weight @wqkv : tensor<512x256xf32>
        {stacked = ["wq", "wk", "wv"], stored = #tfm.stored<q4_k, q4_k, q6_k>}
    ```
  }];
  let parameters = (ins ArrayRefParameter<"::tfmc::weights::ElementType">:$types);
  let assemblyFormat = "`<` $types `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The type every tensor is stored in, when they share one.
    std::optional<::tfmc::weights::ElementType> getShared() const;
  }];
}

#endif // TFM_WEIGHT_ATTRS_TD
