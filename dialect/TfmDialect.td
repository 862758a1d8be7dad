//===- TfmDialect.td - The tfm dialect definition ---------*- tablegen -*-===//
#ifndef TFM_DIALECT_TD
#define TFM_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tfm_Dialect : Dialect {
  let name = "tfm";
  let cppNamespace = "::mlir::tfm";
  let summary = "Transformer networks at the level of their building blocks";
  let description = [{
    The `tfm` dialect describes a transformer language model as a dataflow
    graph of its building blocks (embeddings, norms, linear layers, rotary
    embeddings, attention, activations) on statically shaped tensors with
    value semantics. Weights are symbols (`tfm.global_weight`) resolved
    against the weights blob of the produced executable; they are never
    inlined as constants.

    Activations are `[sequence, features]`: dimension 0 is always the token
    position, so one network can be re-specialised to other sequence lengths
    (the KV-cache split does that for prefill and decode).
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Tfm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfm_Dialect, mnemonic, traits>;

def Tfm_RopeLayoutInterleaved : I32EnumAttrCase<"interleaved", 0>;
def Tfm_RopeLayoutHalfSplit : I32EnumAttrCase<"half_split", 1>;
def Tfm_RopeLayout : I32EnumAttr<"RopeLayout",
    "which feature pairs a rotary embedding rotates together",
    [Tfm_RopeLayoutInterleaved, Tfm_RopeLayoutHalfSplit]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_RopeLayoutAttr : EnumAttr<Tfm_Dialect, Tfm_RopeLayout, "rope_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // TFM_DIALECT_TD
