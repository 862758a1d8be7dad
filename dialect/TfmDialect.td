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
  // tfm.model, tfm.entries, tfm.target and tfm.weights on modules,
  // tfm.entry_arg on entry arguments (TfmAttrs.td).
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Module attributes (see TfmAttrs.td).
    static constexpr ::llvm::StringLiteral kModelAttrName = "tfm.model";
    static constexpr ::llvm::StringLiteral kEntriesAttrName = "tfm.entries";
    static constexpr ::llvm::StringLiteral kTargetAttrName = "tfm.target";
    static constexpr ::llvm::StringLiteral kWeightsAttrName = "tfm.weights";
    /// The argument attribute of entry points.
    static constexpr ::llvm::StringLiteral kEntryArgAttrName = "tfm.entry_arg";
  }];
}

class Tfm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfm_Dialect, mnemonic, traits>;

#endif // TFM_DIALECT_TD
