//===- TfmCpuEnums.td - Choices of CPU kernel configs ------*- tablegen -*-===//
#ifndef TFM_CPU_ENUMS_TD
#define TFM_CPU_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def TfmCpu_InputScheme : I32Enum<"InputScheme",
    "how a projection kernel reads its inputs", [
  // As they are: f32 products with the weights widened to f32.
  I32EnumCase<"f32", 0>,
  // Quantized to int8 per block of 32, integer products (Q8_0, Q4_0).
  I32EnumCase<"int8", 1>,
  // Rounded to bf16, products of pairs of input features (bf16 panels).
  I32EnumCase<"bf16", 2>,
  ]> {
  let cppNamespace = "::mlir::tfm::cpu";
}

def TfmCpu_DotInstruction : I32Enum<"DotInstruction",
    "the dot product instruction a projection kernel's products become", [
  // None: the products stay vector arithmetic (FMAs for f32).
  I32EnumCase<"none", 0>,
  // VNNI's vpdpbusd on 16 (AVX-512 VNNI) or 8 (AVX-VNNI) 32-bit lanes.
  I32EnumCase<"vpdpbusd16", 1>,
  I32EnumCase<"vpdpbusd8", 2>,
  // AVX2's vpmaddubsw (Q4_0's nibble pairs; with vpmaddwd, the k-quants'
  // byte quads).
  I32EnumCase<"vpmaddubsw", 3>,
  // AVX512_BF16's vdpbf16ps (bf16 pairs).
  I32EnumCase<"vdpbf16ps", 4>,
  ]> {
  let cppNamespace = "::mlir::tfm::cpu";
}

#endif // TFM_CPU_ENUMS_TD
