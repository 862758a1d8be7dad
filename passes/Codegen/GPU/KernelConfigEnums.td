//===- KernelConfigEnums.td - The GPU kernel kinds -------*- tablegen -*-===//
//
// The tfm_gpu dialect's own enums, apart from KernelConfig.td so that their
// generated code does not repeat the enums it includes (compiler/weights').
//
//===----------------------------------------------------------------------===//
#ifndef TFM_GPU_KERNEL_CONFIG_ENUMS_TD
#define TFM_GPU_KERNEL_CONFIG_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def TfmGpu_Elementwise : I32EnumAttrCase<"elementwise", 0>;
def TfmGpu_WarpReduction : I32EnumAttrCase<"warp_reduction", 1>;
def TfmGpu_ThreadReduction : I32EnumAttrCase<"thread_reduction", 2>;
def TfmGpu_GemmSimt : I32EnumAttrCase<"gemm_simt", 3>;
def TfmGpu_GemmMma : I32EnumAttrCase<"gemm_mma", 4>;
def TfmGpu_AttentionDecode : I32EnumAttrCase<"attention_decode", 5>;
def TfmGpu_AttentionPrefill : I32EnumAttrCase<"attention_prefill", 6>;
def TfmGpu_KernelKind : I32EnumAttr<"GpuKernelKind",
    "how a kernel is mapped onto the GPU",
    [TfmGpu_Elementwise, TfmGpu_WarpReduction, TfmGpu_ThreadReduction,
     TfmGpu_GemmSimt, TfmGpu_GemmMma, TfmGpu_AttentionDecode,
     TfmGpu_AttentionPrefill]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}

#endif // TFM_GPU_KERNEL_CONFIG_ENUMS_TD
