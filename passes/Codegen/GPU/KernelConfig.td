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

def TfmGpu_Dialect : Dialect {
  let name = "tfm_gpu";
  let cppNamespace = "::mlir::tfm";
  let summary = "Kernel configurations of the tfm GPU code generation";
  let description = [{
    Holds no ops: the attributes with which `tfm-gpu-select-kernel-config`
    tells the later GPU passes how each kernel is tiled over blocks, warps
    and threads.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that carries an op's kernel config.
    static constexpr ::llvm::StringLiteral kKernelAttrName = "tfm_gpu.kernel";
  }];
}

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

#endif // TFM_GPU_KERNEL_CONFIG_TD
