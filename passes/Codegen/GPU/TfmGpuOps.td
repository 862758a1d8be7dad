//===- TfmGpuOps.td - The GPU code generation's ops --------*- tablegen -*-===//
//
// The ops the GPU code generation puts between the target-independent
// stages and its kernels: a matrix read from its GGUF blocks.
//
//===----------------------------------------------------------------------===//
#ifndef TFM_GPU_OPS_TD
#define TFM_GPU_OPS_TD

include "passes/Codegen/GPU/KernelConfig.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TfmGpu_DequantizeOp : Op<TfmGpu_Dialect, "dequantize", [Pure]> {
  let summary = "A matrix's values read from its GGUF blocks";
  let description = [{
    The `[rows, columns]` f32 matrix whose blocks are `quants`, `scales`
    and (k-quants with minimums) `mins` in the `#tfm_gpu.blocks` layout of
    `format`: value `[r, B * b + i]` is `scale[r, b] * q - min[r, b]` (no
    minimum where there are none), `B` values a block, where `q` is
    - `q8_0`: the int8 `quants[r, b, i]`;
    - `q4_0`: the nibble of `quants[r, b, i mod 16]` (low for `i < 16`,
      high otherwise) minus 8;
    - `kquant`: the int8 `quants[r, b, i]` (GGUF's k-quants unpacked: Q6_K's
      `q - 32`, Q5_K's and Q4_K's as stored; `B` = 16 or 32);
    - `kquant4`: the nibble of `quants[r, b, i mod 16]`, as Q4_0's but not
      offset (Q4_K's).

    `tfm-gpu-select-weight-types` reads a projection's matrix through it.
    It computes nothing on its own: a decode GEMV (a warp reduction) reads
    the blocks of its weights' rows where it multiplies them
    (`tfm-gpu-vectorize`), and for any other reader
    `tfm-gpu-select-kernel-config` writes the matrix out in f32 first, an
    elementwise kernel of its own.
    ```mlir
    %w = tfm_gpu.dequantize q4_0 %quants, %scales
        : tensor<288x9x16x1xi8>, tensor<288x9x1xf16> -> tensor<288x288xf32>
    %k = tfm_gpu.dequantize kquant4 %quants, %scales, %mins
        : tensor<288x9x16x1xi8>, tensor<288x9x1xf32>, tensor<288x9x1xf32>
        -> tensor<288x288xf32>
    ```
  }];
  let arguments = (ins TensorOf<[I8]>:$quants, TensorOf<[F16, F32]>:$scales,
                       Optional<TensorOf<[F32]>>:$mins,
                       EnumProp<Weights_PanelFormat>:$format);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $format $quants `,` $scales (`,` $mins^)? attr-dict `:` type($quants) `,`
    type($scales) (`,` type($mins)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Values of a row one byte of `quants` holds: 1, or 2 for nibbles.
    int64_t getValuesPerByte();
    /// Values of a row one block holds (one scale, one minimum).
    int64_t getBlockValues();
  }];
}

#endif // TFM_GPU_OPS_TD
