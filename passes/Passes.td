//===- Passes.td - tfm passes ------------------------------*- tablegen -*-===//
#ifndef TFM_PASSES_TD
#define TFM_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmKVCache : Pass<"tfm-kv-cache", "mlir::ModuleOp"> {
  let summary = "Split the full-sequence network into KV-cached prefill and decode";
  let description = [{
    Rewrites `func.func @forward(%tokens: tensor<SxI32>) -> tensor<SxVxf32>`
    (the whole network over a sequence starting at position 0) into two
    entry points sharing one KV cache:

    ```mlir
    func.func @prefill(%tokens: tensor<CxI32>, %pos: index, %count: index,
                       %cache: tensor<2xLxHxTxDxf32>)
        -> (tensor<1xVxf32>, tensor<2xLxHxTxDxf32>)
    func.func @decode(%tokens: tensor<1xI32>, %pos: index, %cache: tensor<2xLxHxTxDxf32>)
        -> (tensor<1xVxf32>, tensor<2xLxHxTxDxf32>)
    ```

    `C` is the prefill chunk, `T` the context length, `L` the number of
    attention layers, `H` the key/value heads and `D` the head dimension.
    The cache is head-major: each head's keys (and values) of a layer are
    one contiguous `[T, D]` block, so that attending one head streams
    through memory instead of striding over the other heads' features.
    A prefill call processes the whole chunk but returns only the result
    row of its last real token, `count - 1` (a prompt's last chunk may be
    partly filled): generation needs no other, and when the result comes
    from a `tfm.lm_head`, only that row is projected onto the vocabulary.
    `count` is marked `tfm.logits_count` and the cache `tfm.kv_cache`:
    tfm-skip-unread-logits makes `count = 0` skip the result entirely.
    Every position offset (RoPE, learned positions, attention) becomes `%pos`;
    before each attention the new keys and values (`[S, H * D]`, transposed
    to `[H, S, D]`) are written into rows `[pos, pos + S)` of the layer's
    cache slice and the attention reads rows `[0, pos + S)` of every head
    (a dynamically sized `[H, pos + S, D]` slice: attention cost grows with
    the position, not with the context length).
    Result types are re-inferred for the new sequence lengths.
  }];
  let options = [
    Option<"contextLength", "context-length", "int64_t", /*default=*/"0",
           "KV-cache positions (0: the module's tfm.context_length)">,
    Option<"prefillChunk", "prefill-chunk", "int64_t", /*default=*/"32",
           "tokens per prefill call (capped at the context length)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def ConvertTfmToLinalg : Pass<"convert-tfm-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tfm ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Expresses every tfm op as linalg structured ops on tensors. Weights become
    views into the weights blob: each function that reads weights gains a
    leading `memref<Nxi8>` argument (the blob, N bytes), and each
    `tfm.weight` becomes a `memref.view` at the weight's offset in the layout
    of `tfm.global_weight` declarations (module order, 64-byte aligned),
    wrapped by `bufferization.to_tensor`. The declarations are erased and the
    layout is recorded in the module attributes `tfm.weights_bytes` and
    `tfm.weights_layout` so the driver writes the blob the code expects.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def TfmDropInPlaceResults : Pass<"tfm-drop-in-place-results", "mlir::ModuleOp"> {
  let summary = "Drop function results that return an argument buffer";
  let description = [{
    After bufferization an entry point returns its KV cache argument unchanged
    (the cache was updated in place). The runtime ABI passes the cache once,
    so such results are dropped from public functions. Upstream
    `drop-equivalent-buffer-results` leaves public functions alone because it
    cannot update external callers; the entries' only caller is the runtime,
    whose ABI (runtime/ModelABI.h) is written for the dropped form.
  }];
}

def TfmPromoteAccumulators : Pass<"tfm-promote-accumulators"> {
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

def TfmFuseElementwise : Pass<"tfm-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg producers into elementwise consumers";
  let description = [{
    Upstream elementwise fusion restricted to consumers whose loops are all
    parallel. Fusing into a contraction would recompute the producer once
    per output feature (e.g. SiLU(gate) * up inside the down projection
    costs `hidden * dim` transcendentals per token instead of `hidden`), so
    reductions keep reading a materialised operand.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def TfmSerializeSmallParallelLoops
    : Pass<"tfm-serialize-small-parallel-loops"> {
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
    GEMV over 48 panels of 768 features weigh 6 x 768.)
    llama-15m prefill, 32-row chunks: 9715 tok/s at 8192, 11974 at 32768
    (the default); decode and GPT-2 124M's compile time (21 s) unchanged.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Work (innermost iterations plus vector lanes) worth forking "
           "threads for">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def TfmFuseQKV : Pass<"tfm-fuse-qkv", "mlir::ModuleOp"> {
  let summary = "Compute the Q, K and V projections as one GEMM";
  let description = [{
    The three linears of one attention input become one `tfm.linear` over a
    weight that stacks Wq, Wk and Wv along the output dimension (and their
    biases), declared as `tfm.global_weight @layers.N.attn.wqkv {stacked =
    [...]}`: the compiler writes the stacked matrix into the weights blob, so
    nothing is concatenated at run time. Q, K and V are column slices of
    the result. One pass over the input and one parallel region instead of
    three.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def TfmFuseFFN : Pass<"tfm-fuse-ffn", "mlir::ModuleOp"> {
  let summary = "Compute the SwiGLU gate and up projections as one GEMM";
  let description = [{
    `mul(silu(x Wg^T), x Wu^T)` becomes one linear over Wg and Wu stacked at
    compile time (`@layers.N.ffn.w_gate_up`) followed by the SiLU-multiply
    on its two column halves, which tfm-tile-projections computes inside
    the GEMM's tasks (its `fuse-epilogues` option).
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def TfmPackWeights : Pass<"tfm-pack-weights", "mlir::ModuleOp"> {
  let summary = "Store projection weights as column panels for GEMM micro-kernels";
  let description = [{
    Every `tfm.linear` and `tfm.lm_head` becomes a `tfm.packed_linear` that
    reads its weight as `tfm.global_weight @<name>.panels {panels}`: the
    `[rows, columns]` matrix cut into panels of `panel-width` rows, each
    stored column by column (`[P, columns, panel-width]`, zero-padded to a
    whole panel). When it costs at most 1/64 of the matrix, P is padded
    with zero panels to a multiple of `panel-group`, so that
    `tfm-tile-projections` can give every micro-kernel the same number of
    panels (several weight streams at once). The compiler writes this layout into the weights blob, so
    the executable maps the packed weights directly. A micro-kernel then
    loads `panel-width` outputs' weights for one input feature with one
    contiguous vector load and updates them with one FMA per input row.

    A matrix that is also read in its original layout (a tied token
    embedding) keeps that declaration as well; the blob then holds both.
  }];
  let options = [
    Option<"panelWidth", "panel-width", "int64_t", /*default=*/"16",
           "Output rows per panel (f32 lanes of one vector load)">,
    Option<"panelGroup", "panel-group", "int64_t", /*default=*/"8",
           "Pad the panel count to a multiple of this when that adds at "
           "most 1/64 to the matrix (1: no padding)">,
  ];
}

def TfmTileProjections : Pass<"tfm-tile-projections"> {
  let summary = "Register-blocked, vectorised, multi-threaded projection kernels";
  let description = [{
    Rewrites each panel projection (the linalg form of `tfm.packed_linear`:
    `out[s, p, j] += x[s, k] * w[p, k, j]` over loops `(p, s, k, j)`, static
    shapes) into a micro-kernel:

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
    that is at most `accumulators` (a prefill chunk), panels then fill the
    remaining accumulators (a decode step's GEMV gets several independent
    FMA chains) while leaving at least `parallel-tiles` panel groups for
    the threads.

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
    16 KiB, the most a task may allocate for itself (on its stack).
  }];
  let options = [
    Option<"accumulators", "accumulators", "int64_t", /*default=*/"8",
           "Accumulator vectors per micro-kernel (rows x panels); tfmc "
           "uses 8 with 32 vector registers (AVX-512), 4 with 16 (AVX2)">,
    Option<"parallelTiles", "parallel-tiles", "int64_t", /*default=*/"16",
           "Fewest panel groups to share between threads">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Compute a projection's elementwise epilogue (bias, activation, "
           "residual add, SwiGLU's silu(gate) * up) in its kernel">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect"];
}

def TfmVectorizeElementwise : Pass<"tfm-vectorize-elementwise"> {
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

def TfmSplitSharedFills : Pass<"tfm-split-shared-fills"> {
  let summary = "Give every user of a linalg.fill on tensors its own fill";
  let description = [{
    CSE merges identical fills (every zero-initialised accumulator of one
    shape shares one), and one-shot bufferization then copies the shared
    fill into a new buffer for each op that writes into it. With a fill
    (and tensor.empty) per user, each one bufferizes in place. Run it just
    before bufferization, after the last CSE.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def TfmPlanMemory : Pass<"tfm-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer in one compile-time planned arena";
  let description = [{
    After bufferization and deallocation, each function's statically shaped
    `memref.alloc`s that are freed in the entry block become `memref.view`s
    into one arena per function, a private, uninitialised `memref.global
    @<function>_arena` (static storage: no allocation per call). Offsets are
    chosen at compile time, largest buffer first, at the lowest 64-byte
    aligned offset not used by a buffer whose lifetime (allocation to
    deallocation, in block order) overlaps: buffers that are never alive at
    the same time share memory. The `memref.dealloc`s are erased.

    Allocations with dynamic sizes (attention scores over the cache rows
    written so far) are left to the allocator. Because the arena is static,
    a function must not run twice at the same time (runtime/ModelABI.h).
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def TfmFuseAttention : Pass<"tfm-fuse-attention"> {
  let summary = "Compute attention as one fused kernel with an online softmax";
  let description = [{
    Replaces every `tfm.attention` by `tfm.flash_attention`, which
    convert-tfm-to-linalg lowers to one kernel: a parallel loop over
    (query row, head), each walking the keys it may see in blocks of
    `block-keys` (a causal query stops at its own position) with a running
    maximum, sum and output vector in registers. Scores, scale, mask,
    softmax and the product with the values are fused; no score matrix is
    written to memory, in prefill or decode.
  }];
  let options = [
    Option<"blockKeys", "block-keys", "int64_t", /*default=*/"16",
           "Keys per block of scores (one vector of scores)">,
  ];
}

def TfmApproximateMath : Pass<"tfm-approximate-math"> {
  let summary = "Replace math.exp and math.tanh by inline polynomial approximations";
  let description = [{
    Without a vector math library, LLVM lowers `math.exp` to a call to
    `expf` per element, which also keeps the loops around it (softmax,
    SiLU, GELU's tanh) from being vectorised. Upstream's polynomial
    approximations (a few ULP for f32) are plain arithmetic that vectorises
    with the rest of the loop body, including on vector operands.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def TfmPrefetchWeightPanels : Pass<"tfm-prefetch-weight-panels"> {
  let summary = "Prefetch the next weight tile while a GEMM sweeps this one";
  let description = [{
    Matches the bufferized micro-kernels of `tfm-tile-projections` that
    sweep a tile of whole weight panels (`memref<P x K x W>`, panels
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
    k, feature `k + stream-distance` of each of its panels (non-temporal,
    clamped to the last feature). Measured on the 2-thread benchmark
    machine, decode of 128 tokens, interleaved runs (medians): llama-110m
    158 -> 174 tok/s and GPT-2 124M 127 -> 154 (x6), while llama-42m (167 MB
    of weights) measured -2% and llama-15m (61 MB, partly cache-resident)
    -9% (x8), hence the 256 MiB default.
  }];
  let options = [
    Option<"streamDistance", "stream-distance", "int64_t", /*default=*/"16",
           "Input features ahead that a single-sweep kernel prefetches its "
           "panels (0: no prefetch)">,
    Option<"streamMinBytes", "stream-min-bytes", "int64_t",
           /*default=*/"268435456",
           "Prefetch in single-sweep kernels only when a function's add up "
           "to this many bytes of panels">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def TfmPrefetchCacheRows : Pass<"tfm-prefetch-cache-rows"> {
  let summary = "Prefetch the KV-cache rows that attention reads a block later";
  let description = [{
    Matches the bufferized block loops of flash attention: an `scf.for` with
    a constant step over positions `p` whose body reads
    (`vector.transfer_read`, 1-D, along the last dimension) rows `p + c`,
    for constant offsets `c`, of a memref `[..., rows, features]` whose row
    count is dynamic (a view of the KV cache up to the current position),
    at leading indices (the head) that the loop does not change. The reads
    of one memref and head form a block of rows `[p + cmin, p + cmax]`.

    At the start of each iteration the loop prefetches every cache line of
    rows `p + c + distance` of each block (`memref.prefetch`, read,
    locality 0, clamped to the last row). A thread streams one head's keys
    and values at a time, and a block of 16 rows of 64 f32 features is one
    4 KiB page of each, where the hardware prefetcher starts over. Measured
    on the 2-thread benchmark machine, attention's share of a decode step at
    positions 888+ (interleaved runs): llama-42m 19.8% -> 17.1%,
    19.7% -> 17.5% and 19.1% -> 17.5% (x8 each); llama-110m 12.8% -> 11.7%
    (x6); llama-15m's decode and llama-110m's prefill did not change.
  }];
  let options = [
    Option<"distance", "distance", "int64_t", /*default=*/"32",
           "Positions ahead that a block loop prefetches the rows it reads "
           "(0: no prefetch)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def TfmSkipUnreadLogits : Pass<"tfm-skip-unread-logits", "mlir::ModuleOp"> {
  let summary = "Compute a prefill chunk's logits only when the caller wants them";
  let description = [{
    For each function with an argument marked `tfm.logits_count` (and one
    marked `tfm.kv_cache`; tfm-kv-cache marks `@prefill`'s `count` and
    cache), on buffers: the top-level operations after the last one that
    uses the cache (or a view of it) only produce the logits. Those with
    side effects, and those that use a result of one, move into
    `scf.if %count != 0`; allocations, deallocations and the other
    effect-free operations stay outside (allocations and effect-free ones
    that followed the first guarded operation move before the guard).
    A caller that passes `count = 0` for every chunk but the last skips
    the last layer's tail, the final norm and the vocabulary projection of
    all the others. The marks are removed. It is an error if nothing
    follows the last use of the cache: `count = 0` must never reach the
    logits row `count - 1`.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def TfmLowerStridedCopies : Pass<"tfm-lower-strided-copies"> {
  let summary = "Turn memref.copy of strided views into linalg.copy";
  let description = [{
    The LLVM lowering of `memref.copy` between non-contiguous views calls
    `memrefCopy` from MLIR's C runner library, which produced executables do
    not link. As `linalg.copy` such copies become loops like every other
    kernel (and contiguous ones are recognised as memcpy by LLVM).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // TFM_PASSES_TD
