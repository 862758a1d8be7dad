//===- Passes.td - Code generation steps every target shares -*- tablegen -*-===//
#ifndef TFM_CODEGEN_COMMON_PASSES_TD
#define TFM_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def TfmSplitSharedFills : Pass<"tfm-split-shared-fills"> {
  let summary = "Give every user of a linalg.fill or tensor.empty on tensors its own";
  let description = [{
    CSE merges identical fills (every zero-initialised accumulator of one
    shape shares one), and one-shot bufferization then copies the shared
    fill into a new buffer for each op that writes into it. With a fill
    (and tensor.empty) per user, each one bufferizes in place. CSE also
    merges the `tensor.empty`s that parallel loops write into (every
    decode projection of one width shares one); their results then all
    alias it, and one-shot bufferization's conflict analysis grew faster
    than the square of the depth (TinyLlama-1.1B's 22 layers: 8.7 s, 6.7 s
    with an empty per loop). Every user gets its own. Run it just before
    bufferization, after the last CSE.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def TfmCacheToBuffer : Pass<"tfm-cache-to-buffer", "mlir::ModuleOp"> {
  let summary = "Make each entry's KV-cache tensor argument a buffer before bufferization";
  let description = [{
    An entry updates and reads its KV cache as one chain of
    `tensor.insert_slice` through all layers, and one-shot bufferization's
    conflict analysis of that chain grew faster than the square of the
    depth (the TinyLlama-1.1B shape, 22 layers: 7.2 s, 1.2 s for 11). The
    cache is the runtime's buffer anyway: the argument becomes a memref,
    each insert a `bufferization.materialize_in_destination` into a view of
    it and each extract a `bufferization.to_tensor` of a view, and the
    entry no longer returns the cache. Only where that means the same: the
    chain is plain (every link in the entry block, used by the next insert,
    extracts and the return) and every slice read is provably disjoint
    from each slice written after the value it reads. Other entries keep
    their tensor. Run it just before one-shot bufferization.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def TfmApproximateMath : Pass<"tfm-approximate-math"> {
  let summary = "Replace math.exp, math.tanh and math.erf by inline polynomial approximations";
  let description = [{
    Without a vector math library, LLVM lowers `math.exp` to a call to
    `expf` per element, which also keeps the loops around it (softmax,
    SiLU, GELU's tanh) from being vectorised. Upstream's polynomial
    approximations (a few ULP for f32) are plain arithmetic that vectorises
    with the rest of the loop body, including on vector operands.
    `math.erf` (the exact GELU's) has no LLVM lowering at all, so it is
    always replaced; `exp-tanh=false` leaves exp and tanh to LLVM.
  }];
  let options = [
    Option<"expTanh", "exp-tanh", "bool", /*default=*/"true",
           "also replace math.exp and math.tanh">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def TfmSkipUnreadLogits : Pass<"tfm-skip-unread-logits", "mlir::ModuleOp"> {
  let summary = "Compute a prefill chunk's logits only when the caller wants them";
  let description = [{
    For each function with an argument marked `#tfm.entry_arg<count>` (and
    one marked `#tfm.entry_arg<kv_cache>`; tfm-kv-cache marks `@prefill`'s), on buffers: the top-level operations after the last one that
    uses the cache (or a view of it) only produce the logits. Those with
    side effects, and those that use a result of one, move into
    `scf.if %count != 0`; allocations, deallocations and the other
    effect-free operations stay outside (allocations and effect-free ones
    that followed the first guarded operation move before the guard).
    A caller that passes `count = 0` for every chunk but the last skips
    the last layer's tail, the final norm and the vocabulary projection of
    all the others. It is an error if nothing
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

def TfmDecomposeAttention : Pass<"tfm-decompose-attention"> {
  let summary = "Decompose attention kernels into linalg ops (scores materialised)";
  let description = [{
    The reference lowering of `tfm.attention_kernel` for a target without
    an attention kernel of its own: the scores `[heads, queries, keys]` are
    materialised, masked (causal, bidirectional or a sliding window) and
    normalised with a max-shifted softmax, then contracted with the values,
    keys outside features so that value rows are read contiguously, and
    divided by the softmax sum once per output element.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::math::MathDialect"];
}

#endif // TFM_CODEGEN_COMMON_PASSES_TD
