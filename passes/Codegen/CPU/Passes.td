//===- Passes.td - CPU code generation: layouts, tiles, vector widths, memory plans -*- tablegen -*-===//
#ifndef TFM_CODEGEN_CPU_PASSES_TD
#define TFM_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmCpuSelectKernelConfig
    : Pass<"tfm-cpu-select-kernel-config", "mlir::ModuleOp"> {
  let summary = "Choose how each projection and attention is computed";
  let description = [{
    The one place where the CPU code generation chooses, from the module's
    `#tfm.target` and these options, how each kernel is computed; the
    passes after it apply the choice (docs/design.md). Every `tfm.linear`
    and `tfm.lm_head` over a declared matrix gets a `#tfm_cpu.projection`
    and every `tfm.attention` a `#tfm_cpu.attention` as its
    `tfm_cpu.config`:

    - `panels`, the layout `tfm-cpu-pack-weights` gives the weight: the
      `weights` type when one is asked for, else the type the model file
      stores the matrix in (`#tfm.stored`) when the kernels read it (f16,
      bf16, Q8_0, Q4_0; Q4_K as `kquant4`, the other k-quants and stacks of
      k-quants of different kinds as `kquant`), else the matrix's own. A
      matrix whose rows are not whole blocks keeps f32 panels. With int8
      inputs Q8_0 takes `q8_0x4` and the k-quants `kquantx4` and
      `kquant4x4`, and so does Q4_0 (`q4_0x4`) where the target has a VNNI
      byte dot product;
    - `inputs`: `int8` for the byte quads (`q8_0x4`, `q4_0x4`, `kquantx4`,
      `kquant4x4`), and for Q4_0 with int8 inputs (its nibble-pair
      kernel); `bf16` for bf16 panels of an even number of input features
      with `bf16-inputs`; else `f32`. Without an `int8-inputs` value, int8
      inputs are the target's default, decided here once: the quads of
      Q8_0, Q4_0 and the k-quants where the target has AVX-512 VNNI or
      AVX-VNNI, Q4_0's nibble pairs and the k-quants' quads where it has
      AVX2;
    - `accumulators`: `accumulators`, or from the target, half its vector
      registers over the registers a 16-lane f32 row takes (AVX-512: 8,
      AVX2: 4; 8 without a target);
    - `dot`: `vpdpbusd16` (AVX-512 VNNI) or `vpdpbusd8` (AVX-VNNI) for byte
      quads, `vpmaddubsw` for nibble pairs, and for the k-quants' quads
      without VNNI, where the target has AVX2,
      `vdpbf16ps` for bf16 pairs where it has AVX512_BF16, else `none`;
    - `stream_distance`, `stream-prefetch-distance`, and `non_temporal`,
      where the target's CPU is AMD Zen (`znver*`; an Intel Xeon's
      non-temporal prefetches fill L1 alone and slowed decode 2.4x);
    - attention: `block_keys`, `block-keys`; `cache_prefetch`,
      `cache-prefetch-distance`.
  }];
  let options = [
    Option<"weights", "weights", "::mlir::tfm::cpu::WeightTypeOption",
           /*default=*/"::mlir::tfm::cpu::WeightTypeOption{}",
           "Element type of the projection panels: f32, f16, bf16, q8_0 or "
           "q4_0 (empty: as the model file stores each matrix)">,
    Option<"int8Inputs", "int8-inputs", "::mlir::tfm::cpu::TargetDefaultSwitch",
           /*default=*/"::mlir::tfm::cpu::TargetDefaultSwitch{}",
           "Q8_0, Q4_0 and k-quant projections over int8 inputs: true, "
           "false, or empty for the target's default">,
    Option<"bf16Inputs", "bf16-inputs", "bool", /*default=*/"false",
           "Projections over bf16 panels round their inputs to bf16 and sum "
           "the products of pairs">,
    Option<"accumulators", "accumulators", "int64_t", /*default=*/"0",
           "Accumulator vectors per projection micro-kernel (0: from the "
           "target)">,
    Option<"streamPrefetchDistance", "stream-prefetch-distance", "int64_t",
           /*default=*/"16",
           "Input features ahead that a decode kernel streaming its weights "
           "prefetches them (0: none)">,
    Option<"blockKeys", "block-keys", "int64_t", /*default=*/"16",
           "Keys per block of scores of the flash-attention kernels">,
    Option<"cachePrefetchDistance", "cache-prefetch-distance", "int64_t",
           /*default=*/"32",
           "Positions ahead that attention prefetches the KV-cache rows it "
           "reads (0: none)">,
  ];
  let dependentDialects = ["mlir::tfm::cpu::TfmCpuDialect"];
}

def TfmCpuPackWeights : Pass<"tfm-cpu-pack-weights", "mlir::ModuleOp"> {
  let summary = "Store projection weights as column panels for GEMM micro-kernels";
  let description = [{
    Applies the panel layout that each projection's kernel configuration
    (`tfm-cpu-select-kernel-config`) chose: every configured `tfm.linear`
    and `tfm.lm_head` becomes a `tfm_cpu.packed_linear` that reads its
    weight as `tfm.global_weight @<name>.panels` with the layout
    `#tfm_cpu.panels<f32|f16|bf16>`: the `[rows, columns]` matrix cut into
    panels of `panel-width` rows, each stored column by column
    (`[P, columns, panel-width]`, zero-padded to a whole panel). When it
    costs at most 1/64 of the matrix, P is padded with zero panels to a
    multiple of `panel-group`, so that `tfm-cpu-tile-projections` can give
    every micro-kernel the same number of panels (several weight streams
    at once). The compiler writes this layout into the weights blob, so
    the executable maps the packed weights directly. A micro-kernel then
    loads `panel-width` outputs' weights for one input feature with one
    contiguous vector load and updates them with one FMA per input row.

    A tied token embedding, a `tfm.embedding` whose table a classifier
    packed reads, becomes a `tfm_cpu.panel_embedding` over those panels
    (value or block formats), so that the blob holds the matrix once. The
    lookup reads what the panels hold: with `--weights=f16` or `q8_0` the
    embedding is rounded as the classifier is, as a GGUF file's quantized
    token table would be.

    Block formats (`q8_0`, `q4_0`, their `x4` quads, `kquant`, `kquant4`)
    make the projection a `tfm_cpu.quantized_linear` over the matrix's
    `@<name>.quants`, `@<name>.scales` and, for the k-quants,
    `@<name>.mins` (the layouts `#tfm_cpu.panels<F>`,
    `#tfm_cpu.panels<F, scales>`, `#tfm_cpu.panels<F, mins>`; a Q6_K
    matrix, whose minimums are all zero, has none). A configured projection
    whose weight is not a declared matrix is an error.
  }];
  let options = [
    Option<"panelWidth", "panel-width", "int64_t", /*default=*/"16",
           "Output rows per panel (f32 lanes of one vector load)">,
    Option<"panelGroup", "panel-group", "int64_t", /*default=*/"8",
           "Pad the panel count to a multiple of this when that adds at "
           "most 1/64 to the matrix (1: no padding)">,
  ];
  let dependentDialects = ["mlir::tfm::cpu::TfmCpuDialect"];
}

def TfmCpuLowerProjections : Pass<"tfm-cpu-lower-projections", "mlir::ModuleOp"> {
  let summary = "tfm_cpu projections to the linalg forms of their kernels";
  let description = [{
    Lowers `tfm_cpu.panel_embedding` to a gather of each token's row from
    the panels, and `tfm_cpu.packed_linear` and `tfm_cpu.quantized_linear` to
    contractions over their panels, as their kernel configurations say:
    `out[s, p, j] = sum_k x[s, k] * w[p, k, j]` over loops (p, s, k, j) for
    value panels (16-bit panels widened as they are read; with `bf16`
    inputs, the inputs rounded to bf16 and multiplied in pairs of
    features); for block formats, per-block dot products with the widened
    quants and their sum over blocks, each scaled once (with `int8` inputs,
    the inputs quantized to int8 per block and integer products: Q4_0's
    nibble pairs, the byte quads of `q8_0x4` and `q4_0x4`). The contraction
    that `tfm-cpu-tile-projections` turns into a micro-kernel keeps the
    projection's configuration (docs/weight-types.md).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect"];
}

def TfmCpuTileProjections : Pass<"tfm-cpu-tile-projections"> {
  let summary = "Register-blocked, vectorised, multi-threaded projection kernels";
  let description = [{
    Rewrites each linalg op that carries a projection's kernel
    configuration (`#tfm_cpu.projection`, set by
    `tfm-cpu-lower-projections`) into a micro-kernel: the panel projection
    `out[s, p, j] += x[s, k] * w[p, k, j]` over loops `(p, s, k, j)`, or the
    scaled sum over blocks of a block-quantized one (static shapes; another
    op with such a configuration is an error):

    - `scf.forall` over groups of output panels, which becomes the
      OpenMP-shared loop;
    - `scf.for` over groups of input rows;
    - an accumulator tile of `rows x panels` vectors of W lanes, read from
      the output once, carried through the `scf.for` over input features in
      registers and written once;
    - per input feature: one vector load of W weights per panel, the input
      element broadcast, one FMA per accumulator vector.

    Tiling goes through the TilingInterface, the tile through linalg
    vectorisation (a `vector.contract` with a unit reduction, lowered to
    FMAs with `parallelarith`), and the accumulator through loop-invariant
    subset hoisting. Tile sizes: rows are the largest divisor of the rows
    that is at most the configuration's `accumulators` (a prefill chunk),
    panels then fill the remaining accumulators (a decode step's GEMV gets
    several independent FMA chains) while leaving at least `parallel-tiles`
    panel groups for the threads. The loops of each kernel carry its
    configuration, for the passes that read it after bufferization.

    With `fuse-epilogues`, a projection whose output columns only one
    vectorisable elementwise op reads (a bias, GELU, a residual add; or,
    for a gated projection, an op combining its two column halves, as
    SwiGLU's `silu(gate) * up` after tfm-fuse-ffn, which splits it into one
    projection per half) gets that op rewritten over its panel layout, with
    the op's other operands (read per element, per column or per row)
    reshaped to match. The op is tiled over output panels with the
    projections fused into each task: a task computes its panels with the
    micro-kernel above, then the epilogue, one row at a time, while they
    are in cache. A task's tiles (all rows of its panels) must fit in
    16 KiB, the most a task may allocate for itself (on its stack). The
    projections may be float panels or block-quantized (Q8_0, Q4_0, the
    k-quants; a gated one's scaled sum and partial products are split
    together, each half reading its half of the quants, scales and
    minimums): a decode step then forks no separate loop for SwiGLU, and
    its residual adds run in the GEMVs' tasks.

    A k-quant projection of one row (a decode step's GEMV) takes tiles of
    `kquant-gemv-panels` panels rather than as many as the accumulators
    allow: each k-quant panel is four arrays (quants, scales, minimums,
    super-block factors) streamed side by side, and fewer panels per tile
    decoded faster (bench/README.md, "Measured defaults").
  }];
  let options = [
    Option<"parallelTiles", "parallel-tiles", "int64_t", /*default=*/"16",
           "Fewest panel groups to share between threads">,
    Option<"kquantGemvPanels", "kquant-gemv-panels", "int64_t",
           /*default=*/"1",
           "Output panels per tile of a one-row k-quant projection (0: as "
           "many as the accumulators allow)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Compute a projection's elementwise epilogue (bias, activation, "
           "residual add, SwiGLU's silu(gate) * up) in its kernel">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect"];
}

def TfmCpuVectorizeElementwise : Pass<"tfm-cpu-vectorize-elementwise"> {
  let summary = "Vectorise the elementwise ops between kernels in strips";
  let description = [{
    Each statically shaped linalg.generic on tensors whose loops are all
    parallel and that no kernel loop encloses (norm scaling, RoPE,
    embedding gathers, residual adds that no projection absorbed) is tiled
    into an `scf.forall` over strips: one element in every dimension but
    the innermost, the widest multiple of `lanes` elements that divides it
    and is at most `max-strip` there. Each strip is vectorised. An op whose
    innermost dimension has no such strip is left to LLVM.

    Left as scalar loops, their operands are views of one memory arena: a
    store may alias a per-row value the loop reads, so LLVM neither
    vectorises the loop nor hoists the per-row work (RMSNorm's
    `1 / sqrt(mean + eps)` was recomputed for every element). The strips
    are vector code whatever alias analysis proves.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "f32 lanes of one vector register; strips are multiples of it">,
    Option<"maxStrip", "max-strip", "int64_t", /*default=*/"64",
           "Most elements of one strip">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect"];
}

def TfmCpuPromoteAccumulators : Pass<"tfm-cpu-promote-accumulators"> {
  let summary = "Keep reduction accumulators in registers across scf.for loops";
  let description = [{
    Lowered reductions read and write their output element in every
    iteration (`acc = load out[i]; store out[i], acc + x`). When the indices
    are loop-invariant and no other access in the loop can touch the same
    buffer, the element is loaded once before the loop, carried as an
    `iter_args` value and stored once after it. The loop then only loads, so
    LLVM vectorises the reduction even inside OpenMP-outlined bodies, where
    it cannot prove the output buffer distinct from the inputs.

    Two accesses are independent when their buffers have different roots
    (allocations or function arguments, looking through views); the entry
    ABI (runtime/ModelABI.h) guarantees that arguments never overlap.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def TfmCpuSerializeSmallParallelLoops : Pass<"tfm-cpu-serialize-small-parallel-loops"> {
  let summary = "Run parallel loops with little work on one thread";
  let description = [{
    A one-token decode step has many tiny parallel loops (norms, RoPE,
    residual adds over one row) between its large matrix-vector products,
    and a prefill chunk of a small model has elementwise loops of a few
    thousand elements. Forking threads for those costs more than the loop
    itself, so an outermost `scf.parallel` whose estimated work is below
    `min-work` becomes nested `scf.for` loops before OpenMP conversion, and
    so does every `scf.parallel` nested in another one (one team of threads
    is enough). The work estimate is the loop's iterations times, for its
    body, one unit per iteration of the innermost loops plus one per vector
    lane they compute: a scalar elementwise loop over N elements is N, a
    micro-kernel's vector FMAs weigh their 16 lanes each, so matrix-vector
    products never look small. (Counting iterations alone made a decode
    GEMV over 48 panels of 768 features weigh 6 x 768.) The default's
    measurements: bench/README.md, "Measured defaults".
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Work (innermost iterations plus vector lanes) worth forking "
           "threads for">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def TfmCpuPrefetchWeightPanels : Pass<"tfm-cpu-prefetch-weight-panels"> {
  let summary = "Prefetch the next weight tile while a GEMM sweeps this one";
  let description = [{
    Applies to the bufferized micro-kernels of `tfm-cpu-tile-projections`,
    the loops that carry a projection's kernel configuration
    (`#tfm_cpu.projection`), that sweep a tile of whole weight panels (`memref<P x K x W>`, panels
    `[p, p + t)`) once per group of input rows: an `scf.for` over input
    features `k` reading `tile[0, k, 0]`, inside an `scf.for` over row
    groups with a static trip count of at least 2 (a prefill chunk).

    The first sweep reads the tile from DRAM and waits on it; the others
    read it from L2. The pass peels the first row group and makes its
    reduction loop prefetch feature `k` of each panel of the next tile
    (`memref.prefetch`, read, locality 2; the last tile clamps to the last
    panel), so that every tile is already in L2 when its sweeps start.

    Single-sweep kernels (decode's GEMVs) read each panel once, as a
    stream. When the panels that a function's single-sweep kernels read
    add up to at least `stream-min-bytes` (weights that stream from DRAM
    every step), each such kernel's reduction loop prefetches, at feature
    k, feature `k + stream_distance` of each of its panels (its
    configuration's; clamped to the last feature; non-temporal when the
    configuration says `non_temporal`, else locality 3). Smaller weights
    are partly cache-resident, where prefetching costs more than it hides;
    why the defaults are what they are: bench/README.md, "Measured
    defaults".
  }];
  let options = [
    Option<"streamMinBytes", "stream-min-bytes", "int64_t",
           /*default=*/"201326592",
           "Prefetch in single-sweep kernels only when a function's add up "
           "to this many bytes of panels">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def TfmCpuPrefetchCacheRows : Pass<"tfm-cpu-prefetch-cache-rows"> {
  let summary = "Prefetch the KV-cache rows that attention reads a block later";
  let description = [{
    Applies to the bufferized block loops of flash attention that carry an
    attention's kernel configuration (`#tfm_cpu.attention`, set by
    `tfm-cpu-tile-attention`) with a positive `cache_prefetch`: an
    `scf.for` with a constant step over positions `p` whose body reads
    (`vector.transfer_read`, 1-D, along the last dimension) rows `p + c`,
    for constant offsets `c`, of a memref `[..., rows, features]` whose row
    count is dynamic (a view of the KV cache up to the current position),
    at leading indices (the head) that the loop does not change. The reads
    of one memref and head form a block of rows `[p + cmin, p + cmax]`.

    At the start of each iteration the loop prefetches every cache line of
    rows `p + c + cache_prefetch` of each block (`memref.prefetch`, read,
    locality 0, clamped to the last row). A thread streams one head's keys
    and values at a time, and a block of 16 rows of 64 f32 features is one
    4 KiB page of each, where the hardware prefetcher starts over
    (measurements: bench/README.md, "Measured defaults").
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def TfmCpuPlanMemory : Pass<"tfm-cpu-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer in caller-provided scratch planned at compile time";
  let description = [{
    Gives every entry point (each public function definition, whatever
    `tfm.entries` calls it) one more, last argument: a `memref<Nxi8>`
    marked `#tfm.entry_arg<scratch>` (and, for LLVM, `noalias`, 64-byte
    aligned, `dereferenceable` for N bytes), the caller's scratch bytes.
    After bufferization and deallocation, the entry's statically shaped
    `memref.alloc`s that are freed in its entry block become `memref.view`s
    into it. Offsets are chosen at compile time, largest buffer first, at
    the lowest 64-byte aligned offset not used by a buffer whose lifetime
    (allocation to deallocation, in block order) overlaps: buffers that are
    never alive at the same time share memory. The `memref.dealloc`s are
    erased. N is the planned size (0 when nothing is planned); the backend
    publishes the largest N of the entries (`tfm_model.scratch_bytes`,
    runtime/ModelABI.h).

    Because the scratch is the caller's, not static storage, two callers
    with their own scratch run an entry at the same time. Allocations with
    dynamic sizes (attention scores over the cache rows written so far) and
    those of private functions are left to the allocator. With
    `place-buffers=false` the entries only get the (empty) argument, so that
    their signature does not depend on the option.
  }];
  let options = [
    Option<"placeBuffers", "place-buffers", "bool", /*default=*/"true",
           "Place the intermediates in the scratch (false: only add the "
           "argument)">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::tfm::TfmDialect"];
}

def TfmCpuTileAttention : Pass<"tfm-cpu-tile-attention"> {
  let summary = "Tile attention kernels into flash attention, one (row, head) per task";
  let description = [{
    Tiles every `tfm.attention_kernel` (which must carry an attention's
    kernel configuration, `#tfm_cpu.attention`) over its query rows and
    heads, one of each per tile, through its `TilingInterface` (an `scf.forall` that
    becomes the OpenMP-shared loop), and lowers each tile to a loop nest
    with an online softmax: the tile's query, a running maximum, a running
    sum and an output vector stay in registers while it walks the keys it
    may see in blocks of the configuration's `block_keys` (a causal query
    stops at its own position). Scores, scale, mask, softmax and the product with the values
    are fused; no score matrix is written to memory, in prefill or decode.
    Whole blocks are unrolled (one shuffle tree reduces a block's dot
    products into its score vector) and software-pipelined; the last
    partial block walks its keys in a loop. The kernel's loops carry the
    configuration (for `tfm-cpu-prefetch-cache-rows`).
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect"];
}

def TfmCpuBindWeights : Pass<"tfm-cpu-bind-weights", "mlir::ModuleOp"> {
  let summary = "Read weights as views of the one blob a CPU executable maps";
  let description = [{
    Lays the module's `tfm.global_weight` declarations out in one blob
    (declaration order, 64-byte aligned offsets; the package writer uses
    the same layout), gives every function that reads weights a leading
    `memref<Nxi8>` argument (the blob, N bytes), and turns each
    `tfm.weight` into a read-only `memref.view` at the weight's offset,
    wrapped by `bufferization.to_tensor`. The declarations are erased and
    the layout is recorded in the module attribute
    `tfm.weights = #tfm.weights_layout<bytes, hash, offsets>`.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def TfmCpuOutlineKernels : Pass<"tfm-cpu-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Move each loop nest of the entries into a function of its own";
  let description = [{
    The first half of sharing one layer's code between the layers of equal
    shapes (tfm-cpu-dedup-kernels is the second): compile time and code
    size then grow with the kinds of layers, not with their number.

    Each entry's body (after the memory plan, on buffers) is cut into
    kernels: a kernel is a loop nest (an op with regions) with the
    straight-line code before it. The kernel becomes a private function,
    marked `tfm_cpu.kernel` and `noinline` (LLVM would otherwise inline
    the small ones again at every call, and a deep model's entry would
    grow back to one copy per layer), that the entry calls in its place. What stays
    in the entry: constants (each kernel gets a copy of those it reads),
    allocations and deallocations (which end a kernel), and the pure,
    non-vector ops whose operands are all outside the kernel being
    gathered: the views of the weights blob and of the scratch, the cache
    slices of a layer, index arithmetic. Those views are the arguments,
    so the kernels of different layers are equal ops on different
    arguments.

    A memref the entries' bare-pointer calling convention passes as it is
    (a static shape in the identity layout) is an argument as it is. Any
    other (a cache slice: a strided layout, a static offset, a dynamic
    length) goes as its base buffer, its offset and its dynamic sizes and
    strides (`memref.extract_strided_metadata`), and the kernel rebuilds
    it with `memref.reinterpret_cast` at a dynamic offset, which the views
    derived from it inherit: the slices of different layers then have one
    type.

    A run of straight-line code without a loop stays in the entry, and so
    does a kernel that would return a memref or whose body would not
    verify after retyping (that is, nothing changes where the pass cannot
    share).
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def TfmCpuDedupKernels : Pass<"tfm-cpu-dedup-kernels", "mlir::ModuleOp"> {
  let summary = "Call structurally equal kernels through one function";
  let description = [{
    Keeps the first of each set of `tfm_cpu.kernel` functions that are
    equal (the same signature, the same ops with the same attributes and
    types, locations aside), points the calls of the others at it and
    erases them. After tfm-cpu-outline-kernels the kernels of layers of
    equal shapes and weight types are equal, so a uniform model compiles
    one layer's kernels, whatever its depth.
  }];
}

def TfmCpuNibblePairDot : Pass<"tfm-cpu-nibble-pair-dot", "mlir::func::FuncOp"> {
  let summary = "Q4_0 nibble pair products over int8 inputs as vpmaddubsw";
  let description = [{
    Rewrites the vectors of `(byte & 15) * lo + (byte >> 4) * hi` in 16-bit
    lanes (int8 `lo`, `hi`) that the Q4_0 projection over int8 inputs
    computes into AVX2's `vpmaddubsw` (`llvm.call_intrinsic`), in the
    kernels whose configuration (`#tfm_cpu.projection`, on their loops)
    says `dot = vpmaddubsw`. After bufferization: the intrinsic call has no
    declared memory effects.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect"];
}

def TfmCpuByteQuadDot : Pass<"tfm-cpu-byte-quad-dot", "mlir::func::FuncOp"> {
  let summary = "Byte quad products over int8 inputs as vpdpbusd or vpmaddubsw";
  let description = [{
    Rewrites the vectors of `acc + sum_t zext(u_t(w)) * sext(byte_t(x))`
    over the four bytes of 32-bit lanes, where `u_t(w)` is an unsigned
    byte made from byte t of `w` (`byte ^ 0x80` for the Q8_0 projection
    over int8 inputs, `q8_0x4` panels; `byte & 15` or `byte >> 4` for
    Q4_0's `q4_0x4` and Q4_K's `kquant4x4`, whose two quad sums per step
    become two chained instructions; the byte as it is for the k-quants'
    biased `kquantx4`), into VNNI's `vpdpbusd` (`llvm.call_intrinsic`), in
    the kernels whose configuration (`#tfm_cpu.projection`, on their loops)
    says so: 16 lanes an instruction for `dot = vpdpbusd16` (AVX-512 VNNI),
    8 for `vpdpbusd8` (AVX-VNNI). For `dot = vpmaddubsw` (the k-quants'
    quads where the target has AVX2 and no VNNI, their unsigned bytes
    below 64) each quad sum becomes AVX2's `vpmaddubsw` (adjacent products
    summed into 16 bits), the two of a step added there, then `vpmaddwd`
    with ones: 8 lanes an instruction. After bufferization: the intrinsic
    calls have no declared memory effects.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect"];
}

def TfmCpuBf16PairDot : Pass<"tfm-cpu-bf16-pair-dot", "mlir::func::FuncOp"> {
  let summary = "Products of bf16 pairs as AVX512_BF16's vdpbf16ps";
  let description = [{
    Rewrites the vectors of `acc + (ext(w1) * hi(x) + ext(w0) * lo(x))`,
    which the projection over bf16 panels and bf16 input pairs
    (`tfm-cpu-lower-projections`, `bf16` inputs) computes: `x` 32-bit lanes each
    holding two bf16 (`lo(x)` the low half as an f32, `shl(x, 16)`;
    `hi(x)` the high half, `x & 0xFFFF0000`), `w0` and `w1` bf16 vectors,
    into `vdpbf16ps` (`llvm.call_intrinsic`) on `x` and the pairs of `w0`
    and `w1` interleaved: 16 lanes an instruction (8 for a vector of 8), in
    the kernels whose configuration (`#tfm_cpu.projection`, on their loops)
    says `dot = vdpbf16ps`.
    The instruction adds the odd product, then the even one, to `acc`,
    where the form rounds their sum first, and it flushes denormals: the
    two differ in the last bits of the sums. After bufferization.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect"];
}

#endif // TFM_CODEGEN_CPU_PASSES_TD
