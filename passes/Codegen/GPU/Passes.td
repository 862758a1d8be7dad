//===- Passes.td - GPU code generation: kernel configs, tiles, warps, PTX -*- tablegen -*-===//
#ifndef TFM_CODEGEN_GPU_PASSES_TD
#define TFM_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmGpuSelectWeightTypes
    : Pass<"tfm-gpu-select-weight-types", "mlir::ModuleOp"> {
  let summary = "Store the projection and embedding matrices in f16, bf16 "
                "or GGUF blocks where asked or stored so";
  let description = [{
    The GPU's configuration pass, on the fused tfm IR: each f32 matrix
    declaration (`tfm.global_weight` of rank 2, no layout) that only
    projections (`tfm.linear`, `tfm.lm_head`), embeddings (`tfm.embedding`'s
    table, a tied LM head's) and a mixture of experts (`tfm.moe_route`'s
    router, `tfm.moe_experts`' stacked experts) read is declared again in
    the type `weights` asks for, or, with `weights=stored`, in f16 or bf16
    where the model file stores every tensor of it so
    (`#tfm.stored<...>`). The new declaration is named after the old one
    (`NAME.f16`, `NAME.bf16`), stacks the same model tensors, and replaces
    it; the package writer rounds f32 tensors to it (nearest even). The
    readers widen each element as they read it (`convert-tfm-to-linalg`),
    so a decode step reads half the bytes.

    A matrix that only projections and embeddings read keeps GGUF blocks
    (an embedding gathers the elements it reads from them): with
    `weights=stored`, those the file stores every tensor of it in (Q8_0,
    Q4_0; Q4_K as `kquant4`, any mix of Q4_K, Q5_K and Q6_K as `kquant`,
    unpacked as the CPU's panels are), with `weights=q8_0|q4_0` those
    (the package writer quantizes other tensors). It is declared as its
    blocks' quants, scales and (k-quants) minimums (`NAME.q8_0`,
    `NAME.q8_0.scales`, `#tfm_gpu.blocks`) and read through
    `tfm_gpu.dequantize`, whose readers dequantize in registers: a decode
    step reads 8.5 (Q8_0), 4.5 (Q4_0), 6 (Q4_K) or 10-12 (Q5_K, Q6_K)
    bits a value.

    A matrix that something else reads stays f32 (learned position
    tables).
  }];
  let options = [
    Option<"weights", "weights", "::mlir::tfm::GpuWeightType",
           /*default=*/"::mlir::tfm::GpuWeightType::stored",
           "the matrices' element type: stored, f32, f16 or bf16",
           [{::mlir::tfm::gpuWeightTypeValues()}]>,
  ];
  let dependentDialects = ["mlir::tfm::TfmGpuDialect"];
}

def TfmGpuSelectKernelConfig
    : Pass<"tfm-gpu-select-kernel-config", "mlir::ModuleOp"> {
  let summary = "Choose how every kernel maps onto blocks, warps and threads";
  let description = [{
    Gives every kernel of the entries (each linalg op on tensors and each
    `tfm.attention_kernel`) a `#tfm_gpu.kernel` config, which the later GPU
    passes read (IREE's `LLVMGPUSelectLoweringStrategy`). `linalg.fill`s
    that only initialise a reduction's output get none: the reduction's
    tiles fill their own output.

    - All loops parallel: `elementwise`, each thread a vector of up to 16
      bytes of the innermost dimension, 32 to 256 threads a block.
    - A reduction over the innermost, contiguous dimension whose output
      has no more than `gemv-max-rows` rows of a projection (the decode
      GEMVs, also norm statistics and the LM head): `warp_reduction`. Each
      warp computes one to four outputs (more when the grid would
      otherwise have more than four warps per multiprocessor for each of
      them), its lanes load 16 bytes of each operand row at a time (4 f32,
      8 f16/bf16), four loads in flight per lane.
    - A projection over more rows (prefill): `gemm_mma` when the weights
      are f16 or bf16, `tensor-cores` is set (off by default: these tiles
      run on the CPU, their mma.sync lowering is unfinished), the arch has `mma.sync`
      (sm_80 and later) and the shapes are whole m16n8k16 tiles; a warp
      computes 32x16 (or 16x16, 16x8) of the output. Otherwise
      `gemm_simt`: 16x16 threads, each a 4x4 (or smaller) f32 tile.
    - Any other reduction: `thread_reduction`.
    - `tfm.attention_kernel`: `attention_decode` for one query row (split
      over the keys: `attention-splits` ranges, or one per 256 positions of
      the cache), `attention_prefill` otherwise (four query rows a block).

    Fails with a diagnostic on an op no GPU kernel exists for (a quantized
    projection, a tensor op with dynamic shapes) and on an unknown `arch`.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"",
           "The GPU to choose for: sm_80, sm_86, sm_89 or sm_90">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"false",
           "Projections over f16/bf16 weights get gemm_mma tiles (their "
           "activations rounded to the weights' type); unfinished: "
           "tfm-gpu-distribute-to-lanes cannot lower them to mma.sync yet">,
    Option<"attentionSplits", "attention-splits", "int64_t",
           /*default=*/"0",
           "Key ranges of decode attention (0: one per 256 positions)">,
    Option<"gemvMaxRows", "gemv-max-rows", "int64_t", /*default=*/"4",
           "Projections over at most this many rows are GEMVs">,
  ];
  let dependentDialects = ["mlir::tfm::TfmGpuDialect"];
}

def TfmGpuTileAndDistribute : Pass<"tfm-gpu-tile-and-distribute"> {
  let summary = "Tile every configured kernel over blocks, warps and threads";
  let description = [{
    Tiles each op with a `#tfm_gpu.kernel` config (but attention kernels,
    see tfm-gpu-lower-attention) through its TilingInterface into an
    `scf.forall` over its `workgroup` tiles mapped to `#gpu.block`s, and
    each block's tile into an `scf.forall` over its `subgroup` tiles mapped
    to `#gpu.warp`s or its `thread` tiles mapped to `#gpu.thread`s. A
    `linalg.fill` that initialises the op's output is fused into both
    levels. The innermost tiles keep the config: tfm-gpu-vectorize turns
    them into vector code. A forall over one tile along a dimension is
    kept, so that every kernel has the grid and block its config says.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::gpu::GPUDialect"];
}

def TfmGpuLowerAttention : Pass<"tfm-gpu-lower-attention"> {
  let summary = "tfm.attention_kernel as flash-decoding and flash-attention "
                "warps";
  let description = [{
    Rewrites each `tfm.attention_kernel` configured `attention_decode` or
    `attention_prefill` into block and warp foralls whose warps walk keys
    with an online softmax in warp-wide vectors (one vector of the head
    dimension per key: tfm-gpu-distribute-to-lanes later gives each lane
    its slice, and the dot products become shuffle reductions):

    - decode: blocks over (query head, key split); the block's warps take
      the split's keys in turn, each keeping (max m, sum l, accumulator);
      the warps' states meet in shared memory, warp 0 merges them and
      writes the split's state; a second kernel (blocks over query heads)
      merges the splits' states and normalises. With one split the first
      kernel normalises and writes the output itself.
    - prefill: blocks over (query head, groups of query rows), a warp per
      query row walking every key its row may see.

    Keys a query may not see (causal, sliding window, the ring of a
    windowed cache) are skipped, ALiBi slopes and T5's relative position
    bias are added to the scores, keys and values of an f16 cache are
    widened as they are read.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::math::MathDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::gpu::GPUDialect"];
}

def TfmGpuVectorize : Pass<"tfm-gpu-vectorize"> {
  let summary = "Vectorise the thread, warp and tensor-core tiles";
  let description = [{
    Turns the innermost tiles that tfm-gpu-tile-and-distribute left into
    vector code, by their config's kind:

    - `elementwise`: linalg vectorisation of the thread's tile.
    - `warp_reduction`: the warp's tile becomes a loop over `chunk`
      elements of the reduced dimension, in warp-wide vectors (one
      vector of `chunk` elements per operand row, read once for all the
      warp's outputs), accumulated elementwise, reduced once at the end;
      the last, partial chunk is masked.
    - `thread_reduction`: a sequential loop per thread (linalg loops).
    - `gemm_simt`: the thread's tile over the reduction in steps of
      `chunk`, vectorised to a contraction whose accumulator stays in
      registers across the loop.
    - `gemm_mma`: the warp's tile in steps of 16, activations rounded to
      the weights' type, vectorised to m16n8k16-shaped contractions that
      convert-vector-to-gpu turns into `nvgpu.mma.sync`.

    Warp-wide vectors still run on one CPU thread, as do the foralls: the
    IR after this pass and bufferization is what the numerics tests
    execute on the CPU.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

def TfmGpuDistributeToLanes : Pass<"tfm-gpu-distribute-to-lanes"> {
  let summary = "Give each lane its slice of the warp-wide vectors";
  let description = [{
    Inside each `scf.forall` mapped to `#gpu.warp`s (bufferized), every
    warp-wide vector of N elements becomes a vector of ceil(N / 32)
    elements per lane: lane `l` holds elements `[l * n, (l + 1) * n)`, so a
    warp's lanes load consecutive 16-byte pieces of a row (coalesced
    128-bit loads). Transfers are masked where N is not a multiple of 32
    lanes, elementwise ops and loops carry the lane's slice, and a
    `vector.reduction` reduces the lane's slice and then the warp with
    `gpu.subgroup_reduce` (shuffles, after tfm-gpu-expand-subgroup-reduce).
    Scalars stay uniform: every lane computes them. Tensor-core warps
    (`gemm_mma`) are an error: their mma.sync lowering is unfinished.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

def TfmGpuStageHostBuffers
    : Pass<"tfm-gpu-stage-host-buffers", "mlir::func::FuncOp"> {
  let summary = "Copy an entry's token ids in and its outputs out";
  let description = [{
    The ABI (runtime/ModelABI.h) passes a device entry its token ids and
    its outputs (logits, hidden states) in host memory, and everything
    else (weights, cache, scratch) in device memory. On a bufferized entry
    (a function with `tfm.entry_arg` marks), each `tokens` argument is
    copied into a buffer of its own type at the start, and each output (an
    unmarked memref argument) is written to a buffer of its own type that
    is copied to it before the entry returns; with a `count` argument (a
    prefill), only when `count` is not 0, so that a prefill that asks for
    no logits leaves them alone. The buffers are ordinary allocations:
    tfm-cpu-plan-memory places them in the scratch, tfm-gpu-map-to-launches
    makes the copies `gpu.memcpy`s.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def TfmGpuMapToLaunches : Pass<"tfm-gpu-map-to-launches", "mlir::func::FuncOp"> {
  let summary = "Block foralls become gpu.launch, inner foralls threads";
  let description = [{
    Each top-level `scf.forall` mapped to `#gpu.block`s (bufferized)
    becomes a `gpu.launch` with its grid and the block size of its kernel
    config; the foralls inside it are mapped to warp and thread ids, with a
    barrier after each. Constants the kernel uses are cloned into it, so
    that outlining passes only buffers and run-time scalars, and buffers
    with a static offset (a layer's slice of the KV cache) are passed with
    a dynamic one, so that the kernels of equal layers are equal.

    Everything else in an entry runs on the host and allocates on the
    device: `memref.alloc` becomes `gpu.alloc`, `memref.dealloc`
    `gpu.dealloc`, a `memref.copy` between buffers of identity layouts
    `gpu.memcpy`, and one from or to a view with an offset or strides a
    kernel of one thread per element (upstream's gpu.memcpy lowering copies
    bytes from the aligned pointer, ignoring both). Any other op that reads or writes memory
    outside a kernel is an error.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def TfmGpuDedupKernels : Pass<"tfm-gpu-dedup-kernels", "mlir::ModuleOp"> {
  let summary = "Launch structurally equal kernels through one gpu.func";
  let description = [{
    After outlining, the kernels of layers with equal shapes differ only in
    their names (their weights and cache slices are arguments). Each
    `gpu.func` equal to an earlier one (same signature, same body up to
    value numbering, same launch bounds) is erased with its module, and its
    `gpu.launch_func`s call the earlier one, so the number of kernels and
    the compile time do not grow with the depth of the model.
  }];
}

def TfmGpuMergeKernelModules
    : Pass<"tfm-gpu-merge-kernel-modules", "mlir::ModuleOp"> {
  let summary = "Move every kernel into one gpu.module";
  let description = [{
    Outlining gives each kernel a `gpu.module` of its own. This pass moves
    every symbol of every `gpu.module` into one module named `name` and
    points the `gpu.launch_func`s at it, so that a binary loads one image
    (one fatbin) and `--compile-to=ptx` is one PTX file. Each kernel takes
    its module's name (outlining uniques the modules, not the kernels in
    them), any other symbol that name as a prefix. Kernel modules with
    attributes or targets of their own, and two symbols of one name, are
    errors.
  }];
  let options = [
    Option<"moduleName", "name", "std::string", /*default=*/"\"tfm_kernels\"",
           "Name of the merged gpu.module">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def TfmGpuExpandSubgroupReduce : Pass<"tfm-gpu-expand-subgroup-reduce"> {
  let summary = "gpu.subgroup_reduce as a butterfly of warp shuffles";
  let description = [{
    NVVM has no lowering for an f32 `gpu.subgroup_reduce`: each becomes
    five `gpu.shuffle xor` steps (offsets 1, 2, 4, 8, 16) combined with
    the reduction's operation, after which every lane holds the result.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def TfmGpuLowerVectors : Pass<"tfm-gpu-lower-vectors"> {
  let summary = "The kernels' vector ops as the 1-D, aligned ops NVVM takes";
  let description = [{
    convert-gpu-to-nvvm converts 1-D vector ops: the kernels' n-D
    transfers, gathers, broadcasts, masks, steps and contractions (a
    thread's GEMM tile: outer products, then FMAs) are lowered here first,
    with upstream's patterns (as convert-vector-to-llvm does on the host).
    Transfers become `vector.load`, `vector.store` and their masked forms,
    and each gets the alignment of its vector, at most 16 bytes, so that
    NVPTX emits one `ld.global.v4` instead of four scalar loads: the kernel
    configs only vectorise rows whose every vector starts at such an
    address (`vector_width` in `#tfm_gpu.kernel`), and the lane slices of
    tfm-gpu-distribute-to-lanes start at multiples of their size.
  }];
  let dependentDialects = ["mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def TfmGpuSerializeKernels
    : Pass<"tfm-gpu-serialize-kernels", "mlir::ModuleOp"> {
  let summary = "Compile the gpu.modules to PTX and cubins in one fatbin";
  let description = [{
    Replaces every `gpu.module` (in the NVVM dialect) by a `gpu.binary`
    holding one CUDA fatbin with, for each arch of `ptx`, the module's PTX
    (which the driver compiles for the GPU it runs on, this arch or
    newer), and for each arch of `cubin`, a cubin that `ptxas` assembled
    for it. A GPU with a cubin of its own arch loads it; any other GPU of
    at least the oldest PTX arch compiles the PTX. Needs `ptxas` and
    `fatbinary` from the CUDA toolkit at `toolkit` when `cubin` is not
    empty; with only `ptx` the module is embedded as PTX text.
  }];
  let options = [
    ListOption<"ptx", "ptx", "std::string",
               "Archs whose PTX is embedded (sm_80 when neither list is "
               "given)">,
    ListOption<"cubin", "cubin", "std::string",
               "Archs assembled to cubins (tfm-gpu-pipeline: sm_90)">,
    Option<"toolkit", "toolkit", "std::string",
           /*default=*/"\"/usr/local/cuda\"",
           "The CUDA toolkit whose ptxas and fatbinary assemble cubins">,
    Option<"ptxVersion", "ptx-version", "std::string",
           /*default=*/"\"+ptx80\"",
           "PTX ISA of the generated code (sm_90 needs 8.0)">,
    Option<"ptxFile", "ptx-file", "std::string", /*default=*/"\"\"",
           "Also write the PTX of the first `ptx` arch to this file (one "
           "gpu.module only: tfm-gpu-merge-kernel-modules)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::NVVM::NVVMDialect"];
}

def TfmGpuUseEntryStream
    : Pass<"tfm-gpu-use-entry-stream", "mlir::ModuleOp"> {
  let summary = "Queue an entry's device work on the caller's stream";
  let description = [{
    gpu-async-region and gpu-to-llvm give each entry (an `llvm.func` with
    `tfm.entry_arg` marks) a stream of its own: `mgpuStreamCreate` at the
    start, `mgpuStreamSynchronize` and `mgpuStreamDestroy` at the end. ABI 8
    passes the stream instead, as a trailing `void *stream`: this pass
    appends that argument, marked `#tfm.entry_arg<stream>`, uses it where
    the created stream was used, and erases the creation and the
    destruction. The synchronisation stays: an entry returns once its host
    outputs are written. Where an entry created several streams (work in
    an `scf.if`), each is the caller's: the host queues the work in program
    order, which one in-order stream runs in that order.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // TFM_CODEGEN_GPU_PASSES_TD
