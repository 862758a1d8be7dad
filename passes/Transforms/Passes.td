//===- Passes.td - Target-independent rewrites of tfm networks -*- tablegen -*-===//
#ifndef TFM_TRANSFORMS_PASSES_TD
#define TFM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmKVCache : Pass<"tfm-kv-cache", "mlir::ModuleOp"> {
  let summary = "Split the full-sequence network into KV-cached prefill and decode (an encoder: encode)";
  let description = [{
    Rewrites the network function that the module's
    `#tfm.model<kind = ..., network = @forward>` names into the entry points
    of that kind of model: the kind is the builder's, and the pass checks
    that @forward fits it (a decoder's attention cached self-attention, an
    encoder's uncached and bidirectional, an encoder-decoder's @forward
    taking source and target tokens) rather than inferring it. A decoder's
    `func.func @forward(%tokens: tensor<SxI32>) -> tensor<SxVxf32>` (the
    whole network over a sequence starting at position 0) becomes two entry
    points sharing one KV cache, recorded in the module attribute
    `#tfm.entries<prefill = @prefill, decode = @decode, ...>`:

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
    Each argument is marked with what it carries (`#tfm.entry_arg<tokens>`,
    `position`, `count`, `kv_cache`); tfm-skip-unread-logits finds `count`
    this way and makes `count = 0` skip the result entirely.
    Every position offset (RoPE, learned positions, attention) becomes `%pos`;
    before each attention the new keys and values (`[S, H * D]`, transposed
    to `[H, S, D]`) are written into rows `[pos, pos + S)` of the layer's
    cache slice and the attention reads rows `[0, pos + S)` of every head
    (a dynamically sized `[H, pos + S, D]` slice: attention cost grows with
    the position, not with the context length).
    Result types are re-inferred for the new sequence lengths.

    Sliding-window attention keeps a ring of `W + C - 1` slots instead of
    `T` (position p in slot p mod that, the attention marked `ring`).
    When layers hold different numbers of slots (full and windowed layers
    mixed), the cache is `tensor<RxDxf32>` instead: the `H * slots` rows of
    each layer's keys, then of each layer's values, each layer read as a
    `[H, slots, D]` view of its rows and written head by head.

    With `kv-cache=f16` the cache is `tensor<2xLxHxTxDxf16>`: each
    step's keys and values are rounded to f16 (nearest even) as they are
    written, and `tfm.attention` reads f16 keys and values (widened to f32
    as they are read). Half the cache's bytes, for the precision of f16.

    An encoder's network (`kind = encoder`: every `tfm.attention`
    bidirectional with `#tfm.cache_role<none>`) gets no cache and one entry
    instead,
    `#tfm.entries<encode = @encode, context_length = T>`:

    ```mlir
    func.func @encode(%tokens: tensor<TxI32>, %length: index) -> (results of @forward)
    ```

    It runs all `T` positions at once and returns @forward's results for
    every row. Rows from `%length` on are padding (`#tfm.entry_arg<length>`
    marks the argument): each attention reads the keys and values of rows
    `[0, length)` only (a head-major `[H, length, D]` slice), so that no
    real row attends to padding.

    A prompt shorter than the context would still pay for every row, so
    with `encode-min-rows=N` (32 by default) the encoder also gets copies
    of `encode` over `N`, `4N`, `16N`, ... rows below `T`, named in
    `encode_buckets`:
    `#tfm.entries<encode = @encode, context_length = 512, encode_buckets =
    [#tfm.encode_bucket<rows = 32, entry = @encode_32>, ...]>`. The runtime's
    call runs the shortest one that holds its `length`: encoding costs at
    most four times a prompt's rows (rounded up to `N`), at the price of
    compiling the encoder once per bucket.

    An encoder-decoder's network (`kind = encoder_decoder`,
    `@forward(%source, %target)`) gets all three: `encode(%source, %length,
    %cache) -> cache` runs the encoder once and stores every
    cross-attention's keys and values in the cache after the decoder's
    self-attention layers; `prefill` and `decode` take the source's
    `%length` before the cache and run the decoder over the target, its
    cross-attention reading rows `[0, length)` of the stored keys and
    values. Its `encode` gets buckets as an encoder's does (a bucket
    stores the keys and values of its rows only, which hold every real
    one).

    The cache's layout is one implementation of `CacheLayout`
    (`passes/Transforms/KVCache/CacheLayout.h`), the head-major one
    described here; the entries decide which slots a step writes and reads,
    the layout how the cache tensor holds them.
  }];
  let options = [
    Option<"contextLength", "context-length", "int64_t", /*default=*/"0",
           "KV-cache positions, or an encoder's sequence length (0: the context_length of the module's tfm.model)">,
    Option<"prefillChunk", "prefill-chunk", "int64_t", /*default=*/"32",
           "tokens per prefill call (capped at the context length)">,
    Option<"encodeMinRows", "encode-min-rows", "int64_t", /*default=*/"32",
           "an encoder's (and encoder-decoder's source) shortest encode "
           "bucket: encode entries of N, 4N, 16N, ... rows below the "
           "context too, the shortest that holds a call's tokens running "
           "it (0: encode alone, over the whole context)">,
    Option<"kvCache", "kv-cache", "::mlir::tfm::KVCacheType",
           /*default=*/"::mlir::tfm::KVCacheType::f32",
           "element type of the cached keys and values: f32 or f16 (rounded "
           "to nearest even when written, widened to f32 when read)",
           [{::mlir::tfm::kvCacheTypeValues()}]>,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def TfmFuseQKV : Pass<"tfm-fuse-qkv", "mlir::ModuleOp"> {
  let summary = "Compute the Q, K and V projections as one GEMM";
  let description = [{
    The query, key and value projections of one `tfm.attention` (the
    linears its query, keys and values are computed from, through RoPE and
    the KV cache), when all three read one input, become one `tfm.linear`
    over a weight that stacks Wq, Wk and Wv along the output dimension (and
    their biases), declared as `tfm.global_weight @layers.N.attn.wqkv
    {stacked = [...]}`: the compiler writes the stacked matrix into the
    weights blob, so nothing is concatenated at run time. Q, K and V are
    column slices of the result. One pass over the input and one parallel
    region instead of three. Other linears of the same input stay apart,
    and linears that feed no attention are never stacked as Q, K and V.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def TfmFuseFFN : Pass<"tfm-fuse-ffn", "mlir::ModuleOp"> {
  let summary = "Compute the SwiGLU gate and up projections as one GEMM";
  let description = [{
    `mul(silu(x Wg^T), x Wu^T)` becomes one linear over Wg and Wu stacked at
    compile time (`@layers.N.ffn.w_gate_up`) followed by the SiLU-multiply
    on its two column halves, which tfm-cpu-tile-projections computes inside
    the GEMM's tasks (its `fuse-epilogues` option).
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

#endif // TFM_TRANSFORMS_PASSES_TD
