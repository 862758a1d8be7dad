//===- TfmCpuOps.td - CPU projections over packed weights --*- tablegen -*-===//
#ifndef TFM_CPU_OPS_TD
#define TFM_CPU_OPS_TD

include "passes/Codegen/CPU/IR/TfmCpuAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TfmCpu_PackedLinearOp : TfmCpu_Op<"packed_linear",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Fully connected layer over a weight stored as column panels";
  let description = [{
    `result = input * transpose(weight)[:, 0:out_features] + bias`, where the
    `[out_features, in]` weight is stored as `[P, in, W]` value panels (see
    `#tfm_cpu.panels`): `P * W` covers `out_features`, and the rows past it
    are zero padding, which the result leaves out. Produced by
    `tfm-cpu-pack-weights` from `tfm.linear` and `tfm.lm_head`; `config`
    (`#tfm_cpu.projection`) says how its kernel computes it, its `panels`
    the panels' element type. f16 and bf16 panels are widened to f32 as they
    are read (the product and the sum are f32), or, with `bf16` inputs, meet
    the inputs rounded to bf16 in products of pairs.
    ```mlir
    %logits = tfm_cpu.packed_linear %x, %w
        {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 500 : i64}
        : tensor<8x64xf32>, tensor<32x64x16xf32> -> tensor<8x500xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$input,
                       3DTensorOf<[F32, F16, BF16]>:$weight,
                       Optional<1DTensorOf<[F32]>>:$bias,
                       I64Attr:$out_features,
                       TfmCpu_ProjectionConfigAttr:$config);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def TfmCpu_PanelEmbeddingOp : TfmCpu_Op<"panel_embedding",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "Token embedding lookup in a tied classifier's panels";
  let description = [{
    `tfm.embedding` over a `[vocab, dim]` table that the model also reads
    as a classifier, which `tfm-cpu-pack-weights` stored as panels of
    `layout` (`#tfm_cpu.panels`, row `r` in panel `r / W`, lane `r % W`):
    `result[s, :]` is row `t` of the matrix, `t` the token id clamped into
    `[0, vocab)`, times `scale`. The lookup reads the classifier's panels so
    that the weights hold the table once.
    - Value panels (`f32`, `f16`, `bf16`), `[P, dim, W]`: element
      `[t / W, d, t % W]`, widened to f32.
    - Block formats (`q8_0`, `q4_0`, their `x4` quads, `kquant`,
      `kquant4`), the `quants`, `scales` and, for k-quants with minimums,
      `mins` of `tfm_cpu.quantized_linear`: each value dequantized as that
      projection's weights are, `q * d` (Q4_0's nibbles offset by 8), `q * d
      - m` for the k-quants (`kquantx4`, `kquant4x4`: their integer scales
      and minimums times the super-block `factors`).
    ```mlir
    %x = tfm_cpu.panel_embedding %tokens, %panels
        {layout = #tfm_cpu.panels<f32>, vocab = 500 : i64}
        : tensor<8xi32>, tensor<32x64x16xf32> -> tensor<8x64xf32>
    %y = tfm_cpu.panel_embedding %tokens, %quants scales %scales
        {layout = #tfm_cpu.panels<q8_0>, vocab = 500 : i64}
        : tensor<8xi32>, tensor<32x2x32x16xi8>, tensor<32x2x16xf16> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins 1DTensorOf<[I32]>:$tokens,
                       TensorOf<[F32, F16, BF16, I8, I32]>:$panels,
                       Optional<3DTensorOf<[F16, F32, I8]>>:$scales,
                       Optional<3DTensorOf<[F32, I8]>>:$mins,
                       Optional<4DTensorOf<[F32]>>:$factors,
                       TfmCpu_PanelsAttr:$layout,
                       I64Attr:$vocab,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $tokens `,` $panels (`scales` $scales^)? (`mins` $mins^)?
    (`factors` $factors^)? attr-dict `:` type($tokens) `,` type($panels)
    (`,` type($scales)^)? (`,` type($mins)^)? (`,` type($factors)^)?
    `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Values of a row that one block of the panels holds (1: value panels).
    int64_t getBlockValues();
  }];
}

def TfmCpu_QuantizedLinearOp : TfmCpu_Op<"quantized_linear",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "Fully connected layer over block-quantized column panels";
  let description = [{
    `tfm_cpu.packed_linear` over a weight stored in blocks that share a
    scale, in the block format its `config`'s `panels` names (see
    `#tfm_cpu.panels`): `quants`, `scales` and, for the k-quants, `mins` are
    the panel declarations of the `[out_features, in]` matrix.
    - `q8_0` / `q4_0` (GGUF's formats): quants `[P, in / 32, Q, W]` i8
      (Q = 32 for Q8_0, 16 for Q4_0, two values a byte) and scales
      `[P, in / 32, W]` f16; weight `[o, k]` is `q * d` (Q8_0) or
      `(nibble - 8) * d` (Q4_0) with `d` the scale of its block.
    - `q8_0x4`: Q8_0 with quants `[P, in / 32, 8, W]` i32, four int8 a lane.
    - `q4_0x4`: Q4_0 with quants `[P, in / 32, 4, W]` i32, four bytes (eight
      values) a lane.
    - `kquant` (GGUF's Q4_K, Q5_K and Q6_K, unpacked): quants
      `[P, in / B, B, W]` i8 with B = 16 or 32 values a block, scales and
      mins `[P, in / B, W]` f32; weight `[o, k]` is `q * d - m`, or `q * d`
      without `mins` (a Q6_K matrix, whose minimums are all zero).
    - `kquant4` (Q4_K): as `kquant` with B = 32 and the quants two a byte,
      `[P, in / 32, 16, W]` (Q4_0's nibble order).
    - `kquantx4`, `kquant4x4`: `kquant` and `kquant4` with quants four
      bytes a lane (`[P, in / B, B / 4, W]` i32, `kquantx4`'s biased by 32;
      `[P, in / 32, 4, W]`), scales and mins `[P, in / B, W]` i8 (GGUF's
      integers) and `factors` `[P, in / 256, F, W]` f32, each row's `d`
      (f = 0) and, with mins, `dmin` (F = 2) per super-block of 256:
      weight `[o, k]` is `q * (d * scale) - dmin * min`.
    With `f32` inputs each weight is dequantized in registers as it is read,
    and the product and the sum are f32; with `int8` inputs (Q8_0 and Q4_0
    formats; always for `q8_0x4` and `q4_0x4`) the inputs are quantized to
    int8 per block of 32 and the kernel sums integer products
    (docs/weight-types.md). Produced by `tfm-cpu-pack-weights`.
    ```mlir
    %y = tfm_cpu.quantized_linear %x, %q, %d
        {config = #tfm_cpu.projection<panels = q4_0, accumulators = 8>, out_features = 288 : i64}
        : tensor<8x288xf32>, tensor<18x9x16x16xi8>, tensor<18x9x16xf16> -> tensor<8x288xf32>
    %z = tfm_cpu.quantized_linear %x, %kq, %kd mins(%km : tensor<16x16x16xf32>)
        {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 256 : i64}
        : tensor<8x256xf32>, tensor<16x16x16x16xi8>, tensor<16x16x16xf32> -> tensor<8x256xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$input, 4DTensorOf<[I8, I32]>:$quants,
                       3DTensorOf<[F16, F32, I8]>:$scales,
                       Optional<3DTensorOf<[F32, I8]>>:$mins,
                       Optional<4DTensorOf<[F32]>>:$factors,
                       Optional<1DTensorOf<[F32]>>:$bias,
                       I64Attr:$out_features,
                       TfmCpu_ProjectionConfigAttr:$config);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $input `,` $quants `,` $scales (`,` $bias^)?
    (`mins` `(` $mins^ `:` type($mins) `)`)?
    (`factors` `(` $factors^ `:` type($factors) `)`)? attr-dict `:`
    type($input) `,` type($quants) `,` type($scales) (`,` type($bias)^)?
    `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The block format of the quants (the config's `panels`).
    ::tfmc::weights::PanelFormat getFormat() {
      return getConfig().getPanels();
    }
  }];
}

#endif // TFM_CPU_OPS_TD
