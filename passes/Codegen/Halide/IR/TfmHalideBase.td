//===- TfmHalideBase.td - The tfm_halide dialect -----------*- tablegen -*-===//
#ifndef TFM_HALIDE_BASE_TD
#define TFM_HALIDE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TfmHalide_Dialect : Dialect {
  let name = "tfm_halide";
  let cppNamespace = "::mlir::tfm::halide";
  let summary = "Kernels that tfmc-halide-gen generates, and their calls";
  let description = [{
    The Halide code generator's side of a module (docs/halide.md): a
    `tfm_halide.kernel` declares one kernel by its description (the JSON
    tfmc-halide-gen reads), and a `tfm_halide.call` calls it on tensors or,
    after bufferization, on buffers. `tfm-halide-outline-kernels` writes
    both from tfm ops; `tfm-halide-lower-calls` turns the calls into calls
    of the runtime's adapter (runtime/halide/HalideCalls.h) and the
    declarations into the module's `tfm_halide.kernels`, which the backend
    hands to tfmc-halide-gen.
  }];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// The module attribute that lists the kernels' descriptions once the
    /// calls are lowered: a dictionary from kernel name to its JSON.
    static constexpr ::llvm::StringLiteral kKernelsAttrName =
        "tfm_halide.kernels";
  }];
}

class TfmHalide_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfmHalide_Dialect, mnemonic, traits>;

class TfmHalide_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TfmHalide_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // TFM_HALIDE_BASE_TD
