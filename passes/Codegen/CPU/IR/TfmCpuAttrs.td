//===- TfmCpuAttrs.td - CPU layouts and kernel configs -----*- tablegen -*-===//
#ifndef TFM_CPU_ATTRS_TD
#define TFM_CPU_ATTRS_TD

include "passes/Codegen/CPU/IR/TfmCpuBase.td"
include "passes/Codegen/CPU/IR/TfmCpuEnums.td"
include "dialect/TfmWeightAttrs.td"

def TfmCpu_PanelsAttr : TfmCpu_Attr<"Panels", "panels",
    [DeclareAttrInterfaceMethods<Tfm_WeightLayoutAttrInterface,
                                 ["getPanelLayout"]>]> {
  let summary = "A projection's matrix as column panels (a weight's layout)";
  let description = [{
    The layout `tfm-cpu-pack-weights` gives the `[rows, columns]` matrix of
    a projection, as the `layout` of the `tfm.global_weight`s it declares
    (compiler/weights/PanelLayout.h; docs/weight-types.md). `format` says
    what the panels hold, `part` which declaration this is (default
    `quants`):
    - `f32`, `f16`, `bf16`: value panels `[P, columns, W]` of that element
      type, element `[p, k, j]` row `p * W + j`, column `k` (zero past the
      last row, including whole zero panels the packing may add).
    - `q8_0`, `q4_0` (GGUF's formats: blocks of 32 values along each row
      sharing one scale): quants `[P, KB, Q, W]` i8 with `KB = columns / 32`
      (Q8_0: `Q = 32`, byte `[p, b, i, j]` the int8 of row `p * W + j`,
      column `b * 32 + i`; Q4_0: `Q = 16`, its low nibble column
      `b * 32 + i`, its high nibble column `b * 32 + 16 + i`, each the value
      plus 8); `scales`, `[P, KB, W]` f16.
    - `q8_0x4`, `q4_0x4`: the same bytes four of a row in each i32 lane,
      quants `[P, KB, 8, W]` (Q8_0: byte `t` of `[p, b, i, j]` the int8 of
      column `b * 32 + 4 * i + t`) or `[P, KB, 4, W]` (Q4_0's byte
      `4 * i + t` of the block), the layout of the kernels over int8 inputs
      that sum four byte products a lane (VNNI's `vpdpbusd`).
    - `kquant`, `kquant4`: GGUF's k-quants unpacked, quants `[P, KB, B, W]`
      i8 with `B` = 16 or 32 values a block (`kquant`), or Q4_K's nibbles
      two a byte in blocks of 32 (`kquant4`, `[P, KB, 16, W]` in Q4_0's
      nibble order); `scales` and `mins`, `[P, KB, W]` f32 each. Value
      `[p, k, j]` is `q * d - m`, exactly ggml's dequantized value.
    - `kquantx4`, `kquant4x4`: their quants four bytes of a row a lane (the
      kernels over int8 inputs; `kquantx4`'s biased by 32 to unsigned
      bytes), `scales` and `mins` `[P, KB, W]` i8, GGUF's integer sub-block
      scales and minimums, and `factors` `[P, KB * B / 256, F, W]` f32, the
      row's f16 `d` and (F = 2) `dmin` of each super-block of 256 values:
      `d * scale` and `dmin * min` are `kquant`'s f32 scale and minimum.
    ```mlir
    tfm.global_weight @wo.panels : tensor<18x288x16xf16> {layout = #tfm_cpu.panels<f16>, stacked = ["wo"]}
    tfm.global_weight @wo.quants : tensor<18x9x32x16xi8> {layout = #tfm_cpu.panels<q8_0>, stacked = ["wo"]}
    tfm.global_weight @wo.scales : tensor<18x9x16xf16> {layout = #tfm_cpu.panels<q8_0, scales>, stacked = ["wo"]}
    ```
  }];
  let parameters = (ins "::tfmc::weights::PanelFormat":$format,
      DefaultValuedParameter<"::tfmc::weights::PanelPart",
                             "::tfmc::weights::PanelPart::quants">:$part);
  let assemblyFormat = "`<` $format (`,` $part^)? `>`";
  let genVerifyDecl = 1;
}

def TfmCpu_ProjectionConfigAttr : TfmCpu_Attr<"ProjectionConfig", "projection"> {
  let summary = "How the CPU code generation computes one projection";
  let description = [{
    Chosen once per projection by `tfm-cpu-select-kernel-config` from
    `#tfm.target` and the pipeline's options, and read by the passes that
    apply it: `panels`, the layout `tfm-cpu-pack-weights` gives its weight
    (`#tfm_cpu.panels`' formats); `inputs`, how its kernel reads its inputs
    (`f32`; `int8`: quantized per block of 32, integer products, for Q8_0
    and Q4_0 panels; `bf16`: rounded, products of pairs, for bf16 panels);
    `accumulators`, the vectors of its register tile
    (`tfm-cpu-tile-projections`); `dot`, the instruction its products
    become (`vpdpbusd16`/`vpdpbusd8` for byte quads, `vpmaddubsw` for
    Q4_0's nibble pairs, `vdpbf16ps` for bf16 pairs, by the dot passes);
    `stream_distance`, the input features ahead that a decode kernel
    streaming its weights prefetches them (0: none), `non_temporal`, whether
    that prefetch bypasses the caches (`tfm-cpu-prefetch-weight-panels`).
    Set as `tfm_cpu.config` on `tfm.linear` and `tfm.lm_head`, then on the
    `tfm_cpu` projection (`config`), on its linalg form and on the loops
    of its micro-kernel.
    ```mlir
    #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>
    ```
  }];
  let parameters = (ins "::tfmc::weights::PanelFormat":$panels,
      DefaultValuedParameter<"::mlir::tfm::cpu::InputScheme",
                             "::mlir::tfm::cpu::InputScheme::f32">:$inputs,
      "int64_t":$accumulators,
      DefaultValuedParameter<"::mlir::tfm::cpu::DotInstruction",
                             "::mlir::tfm::cpu::DotInstruction::none">:$dot,
      DefaultValuedParameter<"int64_t", "0">:$stream_distance,
      DefaultValuedParameter<"bool", "false">:$non_temporal);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def TfmCpu_AttentionConfigAttr : TfmCpu_Attr<"AttentionConfig", "attention"> {
  let summary = "How the CPU code generation computes one attention";
  let description = [{
    Chosen per attention by `tfm-cpu-select-kernel-config` and read by the
    passes that apply it: `block_keys`, the keys of one block of scores of
    the flash-attention kernel (`tfm-cpu-tile-attention`), and
    `cache_prefetch`, the positions ahead that its block loop prefetches the
    KV-cache rows it reads (`tfm-cpu-prefetch-cache-rows`; 0: none). Set as
    `tfm_cpu.config` on `tfm.attention`, then on `tfm.attention_kernel`
    and on the kernel's block loops.
    ```mlir
    #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>
    ```
  }];
  let parameters = (ins "int64_t":$block_keys,
                        DefaultValuedParameter<"int64_t", "0">:$cache_prefetch);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TFM_CPU_ATTRS_TD
