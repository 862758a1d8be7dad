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
  let summary = "A matrix's values read from its Q8_0 or Q4_0 blocks";
  let description = [{
    The `[rows, columns]` f32 matrix whose blocks of 32 values are
    `quants` and `scales` in the `#tfm_gpu.blocks` layout of `format`
    (`q8_0` or `q4_0`): value `[r, 32 * b + i]` is `scale[r, b] * q`, `q`
    Q8_0's int8 `quants[r, b, i]`, or Q4_0's nibble of
    `quants[r, b, i mod 16]` (low for `i < 16`, high otherwise) minus 8.

    `tfm-gpu-select-weight-types` reads a projection's matrix through it.
    It computes nothing on its own: a decode GEMV (a warp reduction) reads
    the blocks of its weights' rows where it multiplies them
    (`tfm-gpu-vectorize`), and for any other reader
    `tfm-gpu-select-kernel-config` writes the matrix out in f32 first, an
    elementwise kernel of its own.
    ```mlir
    %w = tfm_gpu.dequantize q4_0 %quants, %scales
        : tensor<288x9x16x1xi8>, tensor<288x9x1xf16> -> tensor<288x288xf32>
    ```
  }];
  let arguments = (ins TensorOf<[I8]>:$quants, TensorOf<[F16]>:$scales,
                       EnumProp<Weights_PanelFormat>:$format);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $format $quants `,` $scales attr-dict `:` type($quants) `,` type($scales)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Values of a row one byte of `quants` holds: 1 for Q8_0, 2 for Q4_0.
    int64_t getValuesPerByte();
  }];
}

#endif // TFM_GPU_OPS_TD
