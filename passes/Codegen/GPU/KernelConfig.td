//===- KernelConfig.td - Kernel configurations of the GPU codegen -*- tablegen -*-===//
//
// tfm-gpu-select-kernel-config chooses, once per kernel, how it runs on the
// GPU; the passes after it (tiling, attention, vectorisation) read the
// choice from the `tfm_gpu.kernel` attribute of the op instead of finding
// their subject again from its shapes (as IREE's lowering_config).
//
//===----------------------------------------------------------------------===//
#ifndef TFM_GPU_KERNEL_CONFIG_TD
#define TFM_GPU_KERNEL_CONFIG_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "compiler/weights/PanelLayout.td"
include "dialect/TfmWeightAttrs.td"
include "passes/Codegen/GPU/KernelConfigEnums.td"

def TfmGpu_Dialect : Dialect {
  let name = "tfm_gpu";
  let cppNamespace = "::mlir::tfm";
  let summary = "Kernel configurations of the tfm GPU code generation";
  let description = [{
    The GPU code generation's vocabulary beside the `tfm` dialect: the
    attributes with which `tfm-gpu-select-kernel-config` tells the later
    GPU passes how each kernel is tiled over blocks, warps and threads
    (`#tfm_gpu.kernel`), the layout of a matrix kept in GGUF's blocks
    (`#tfm_gpu.blocks`) and the op that reads it (`tfm_gpu.dequantize`).
  }];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that carries an op's kernel config.
    static constexpr ::llvm::StringLiteral kKernelAttrName = "tfm_gpu.kernel";
  }];
}

def TfmGpu_KernelConfigAttr : AttrDef<TfmGpu_Dialect, "GpuKernelConfig"> {
  let mnemonic = "kernel";
  let summary = "How one kernel is tiled over blocks, warps and threads";
  let description = [{
    Sizes are per loop of the op's iteration domain (a linalg op's loops;
    an attention kernel's query rows and heads); 0 leaves a loop untiled at
    that level.

    - `workgroup`: the tile one thread block computes; the grid is the
      number of tiles.
    - `subgroup`: the tile one warp computes (warp kinds), empty otherwise.
    - `thread`: the tile one thread computes (thread kinds), empty otherwise.
    - `block`: threads per block, `[x, y, z]`.
    - `vector_width`: elements one lane loads at a time (16 bytes where the
      shapes allow: 4 f32, 8 f16).
    - `chunk`: elements of the reduced dimension one warp (or thread)
      consumes per loop iteration (a warp reduction: `32 * vector_width *
      unroll`; a GEMM: its k step); for attention, the keys one warp
      walks per step.
    - `splits`: decode attention only: the key ranges that blocks walk in
      parallel before a combine kernel merges them (flash-decoding).

    The kinds:
    - `elementwise`: all loops parallel; each thread computes `thread`
      (its innermost size is the vector width).
    - `warp_reduction`: the innermost loop is a reduction over contiguous
      elements (decode GEMVs, norm statistics); each warp reduces the
      `subgroup` outputs, its lanes striding the reduced dimension with
      16-byte loads, and shuffles combine the lanes.
    - `thread_reduction`: any other reduction; each thread computes its
      `thread` outputs with a sequential loop.
    - `gemm_simt`: a projection over several rows in f32; each thread
      accumulates a `thread` tile in registers.
    - `gemm_mma`: a projection over f16/bf16 weights on tensor cores: each
      warp computes its `subgroup` tile with `mma.sync` m16n8k16.
    - `attention_decode`: `tfm.attention_kernel` for few query rows; blocks
      of (head, key split), warps walking keys of the split.
    - `attention_prefill`: `tfm.attention_kernel` for a chunk of rows;
      blocks of (head, rows), a warp per query row.
    ```mlir
    #tfm_gpu.kernel<warp_reduction, workgroup = [1, 8, 0],
                    subgroup = [1, 2, 0], block = [128, 1, 1],
                    vector_width = 4, chunk = 256>
    ```
  }];
  let parameters = (ins
    EnumParameter<TfmGpu_KernelKind>:$kind,
    ArrayRefParameter<"int64_t", "block tile per loop">:$workgroup,
    OptionalArrayRefParameter<"int64_t", "warp tile per loop">:$subgroup,
    OptionalArrayRefParameter<"int64_t", "thread tile per loop">:$thread,
    ArrayRefParameter<"int64_t", "threads per block (x, y, z)">:$block,
    DefaultValuedParameter<"int64_t", "1">:$vector_width,
    DefaultValuedParameter<"int64_t", "0">:$chunk,
    DefaultValuedParameter<"int64_t", "1">:$splits);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per block.
    int64_t getNumThreads() const;
    /// Warps per block.
    int64_t getNumWarps() const { return getNumThreads() / 32; }
  }];
}

def TfmGpu_BlocksAttr : AttrDef<TfmGpu_Dialect, "GpuBlocks",
    [DeclareAttrInterfaceMethods<Tfm_WeightLayoutAttrInterface,
                                 ["getPanelLayout"]>]> {
  let mnemonic = "blocks";
  let summary = "A matrix as rows of GGUF blocks (a weight's layout)";
  let description = [{
    The layout `tfm-gpu-select-weight-types` gives a `[rows, columns]`
    matrix that the model file stores in GGUF's blocks, so that the GPU
    reads the blocks as downloaded (Q8_0 and Q4_0) or exactly unpacked
    (the k-quants), a quarter to an eighth of the f32 bytes, and
    dequantizes them in registers. The blocks are split into declarations
    of `KB` blocks a row, each row's bytes contiguous and 16-byte aligned
    (GGUF's own 34- and 18-byte blocks are not):
    - `quants`, `[rows, KB, Q, 1]` i8: Q8_0's 32 int8 of each block
      (`Q = 32`); Q4_0's 16 bytes (`Q = 16`), byte `i` holding column
      `32 * b + i` in its low nibble and `32 * b + 16 + i` in its high one,
      each the value plus 8; `kquant`'s int8 k-quants, blocks of 16 or 32
      (Q6_K's `q - 32`, Q5_K's and Q4_K's as stored); `kquant4`'s Q4_K
      nibbles, in Q4_0's order, not offset;
    - `scales`, `[rows, KB, 1]`: each block's scale, f16 (Q8_0, Q4_0) or
      the k-quants' f32 `d * scale`;
    - `mins` (k-quants), `[rows, KB, 1]` f32: each block's `dmin * min`,
      subtracted (absent for Q6_K, whose minimums are zero).
    These are compiler/weights' `q8_0`, `q4_0`, `kquant` and `kquant4`
    panels of one row each (PanelLayout.h): the package writer copies the
    file's blocks into them, or unpacks its k-quant super-blocks (exact:
    ggml's dequantized values), or quantizes an f32 matrix (Q8_0, Q4_0).
    ```mlir
    tfm.global_weight @wq.q4_0 : tensor<288x9x16x1xi8> {layout = #tfm_gpu.blocks<q4_0>, stacked = ["wq"]}
    tfm.global_weight @wq.q4_0.scales : tensor<288x9x1xf16> {layout = #tfm_gpu.blocks<q4_0, scales>, stacked = ["wq"]}
    tfm.global_weight @wk.kquant4.mins : tensor<288x9x1xf32> {layout = #tfm_gpu.blocks<kquant4, mins>, stacked = ["wk"]}
    ```
  }];
  let parameters = (ins "::tfmc::weights::PanelFormat":$format,
      DefaultValuedParameter<"::tfmc::weights::PanelPart",
                             "::tfmc::weights::PanelPart::quants">:$part);
  let assemblyFormat = "`<` $format (`,` $part^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The element type of `format`'s scales and minimums: GGUF's f16 for
    /// Q8_0 and Q4_0, the k-quants' unpacked f32.
    static ::mlir::Type getScaleType(::mlir::MLIRContext *context,
                                     ::tfmc::weights::PanelFormat format);
  }];
}

#endif // TFM_GPU_KERNEL_CONFIG_TD
