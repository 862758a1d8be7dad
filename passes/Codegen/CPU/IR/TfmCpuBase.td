//===- TfmCpuBase.td - The tfm_cpu dialect -----------------*- tablegen -*-===//
#ifndef TFM_CPU_BASE_TD
#define TFM_CPU_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TfmCpu_Dialect : Dialect {
  let name = "tfm_cpu";
  let cppNamespace = "::mlir::tfm::cpu";
  let summary = "What the CPU code generation chooses and the ops it packs";
  let description = [{
    The CPU backend's vocabulary beside the target-independent `tfm`
    dialect: the layout of a projection's weights in the blob
    (`#tfm_cpu.panels<...>`, a `tfm.global_weight`'s `layout`), the
    projections over those panels (`tfm_cpu.packed_linear`,
    `tfm_cpu.quantized_linear`), and the kernel configurations that
    `tfm-cpu-select-kernel-config` chooses and the later CPU passes read
    (`#tfm_cpu.projection<...>`, `#tfm_cpu.attention<...>`, set as the
    `tfm_cpu.config` attribute of the op or loop they configure).
  }];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
  let useDefaultAttributePrinterParser = 1;
  // tfm_cpu.config on the ops and loops it configures.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that carries a kernel configuration.
    static constexpr ::llvm::StringLiteral kConfigAttrName = "tfm_cpu.config";
    /// The unit attribute on the functions tfm-cpu-outline-kernels makes of
    /// an entry's loop nests, which tfm-cpu-dedup-kernels may merge.
    static constexpr ::llvm::StringLiteral kKernelAttrName = "tfm_cpu.kernel";
  }];
}

class TfmCpu_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfmCpu_Dialect, mnemonic, traits>;

class TfmCpu_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TfmCpu_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // TFM_CPU_BASE_TD
