//===- TfmAttrs.td - Attributes and enums of the tfm dialect -*- tablegen -*-===//
//
// The IR contracts between stages: what a network is (tfm.model), which
// functions are its entry points (tfm.entries), what each entry argument
// means (tfm.entry_arg), which target code is generated for (tfm.target),
// and where the weights lie in the blob a CPU binary maps (tfm.weights).
// The dialect verifies each wherever it appears (TfmDialect.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TFM_ATTRS_TD
#define TFM_ATTRS_TD

include "dialect/TfmDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Tfm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tfm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tfm_RopeLayoutInterleaved : I32EnumAttrCase<"interleaved", 0>;
def Tfm_RopeLayoutHalfSplit : I32EnumAttrCase<"half_split", 1>;
def Tfm_RopeLayout : I32EnumAttr<"RopeLayout",
    "which feature pairs a rotary embedding rotates together",
    [Tfm_RopeLayoutInterleaved, Tfm_RopeLayoutHalfSplit]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_RopeLayoutAttr : EnumAttr<Tfm_Dialect, Tfm_RopeLayout, "rope_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_MaskCausal : I32EnumAttrCase<"causal", 0>;
def Tfm_MaskBidirectional : I32EnumAttrCase<"bidirectional", 1>;
def Tfm_MaskSlidingWindow : I32EnumAttrCase<"sliding_window", 2>;
def Tfm_MaskKind : I32EnumAttr<"MaskKind",
    "which keys a query may attend to",
    [Tfm_MaskCausal, Tfm_MaskBidirectional, Tfm_MaskSlidingWindow]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_MaskKindAttr : EnumAttr<Tfm_Dialect, Tfm_MaskKind, "mask"> {
  let summary = "Which keys a query may attend to";
  let description = [{
    With query row `s` at absolute position `p = offset + s` and key row `j`
    at position `j`: `causal` shows keys `j <= p`; `bidirectional` shows
    every key; `sliding_window` shows keys `p - window < j <= p` (Mistral's
    semantics; the op's `window` attribute gives the width).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_GeluTanh : I32EnumAttrCase<"tanh", 0>;
def Tfm_GeluErf : I32EnumAttrCase<"erf", 1>;
def Tfm_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "which formula a GELU computes",
    [Tfm_GeluTanh, Tfm_GeluErf]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_GeluApproximationAttr
    : EnumAttr<Tfm_Dialect, Tfm_GeluApproximation, "gelu"> {
  let summary = "Which formula a GELU computes";
  let description = [{
    `tanh`: `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` (GPT-2's
    `gelu_new`, PyTorch's `approximate="tanh"`); `erf`: the exact
    `0.5 x (1 + erf(x / sqrt(2)))` (BERT's `gelu`, PyTorch's default).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_RoutingTopKSoftmax : I32EnumAttrCase<"top_k_softmax", 0>;
def Tfm_RoutingSoftmaxTopK : I32EnumAttrCase<"softmax_top_k", 1>;
def Tfm_Routing : I32EnumAttr<"Routing",
    "how a mixture of experts weighs the experts it chooses",
    [Tfm_RoutingTopKSoftmax, Tfm_RoutingSoftmaxTopK]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_RoutingAttr : EnumAttr<Tfm_Dialect, Tfm_Routing, "routing"> {
  let summary = "How a mixture of experts weighs the experts it chooses";
  let description = [{
    Each token chooses the `top_k` experts with the largest router logits
    (the lower index first among equal logits). `top_k_softmax`: their
    weights are the softmax over the chosen logits (Mixtral: the softmax
    over all experts, renormalised over the chosen ones, is the same).
    `softmax_top_k`: their weights are their probabilities under the
    softmax over all experts, not renormalised (Qwen2-MoE's
    `norm_topk_prob = false`).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_CacheRoleSelf : I32EnumAttrCase<"self", 0>;
def Tfm_CacheRoleCross : I32EnumAttrCase<"cross", 1>;
def Tfm_CacheRoleNone : I32EnumAttrCase<"none", 2>;
def Tfm_CacheRole : I32EnumAttr<"CacheRole",
    "what a KV cache holds for an attention",
    [Tfm_CacheRoleSelf, Tfm_CacheRoleCross, Tfm_CacheRoleNone]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_CacheRoleAttr : EnumAttr<Tfm_Dialect, Tfm_CacheRole, "cache_role"> {
  let summary = "What a KV cache holds for an attention";
  let description = [{
    `self`: the attention's keys and values are projections of the tokens
    processed so far, so generation caches them per position (decoder
    self-attention). `cross`: they come from another sequence computed once
    (an encoder's output, for a decoder's cross-attention). `none`: nothing
    is cached (an encoder sees its whole input at once).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_EntryArgTokens : I32EnumAttrCase<"tokens", 0>;
def Tfm_EntryArgPosition : I32EnumAttrCase<"position", 1>;
def Tfm_EntryArgCount : I32EnumAttrCase<"count", 2>;
def Tfm_EntryArgKVCache : I32EnumAttrCase<"kv_cache", 3>;
def Tfm_EntryArgWeights : I32EnumAttrCase<"weights", 4>;
def Tfm_EntryArgLength : I32EnumAttrCase<"length", 5>;
def Tfm_EntryArgScratch : I32EnumAttrCase<"scratch", 6>;
def Tfm_EntryArgStream : I32EnumAttrCase<"stream", 7>;
def Tfm_EntryArg : I32EnumAttr<"EntryArg",
    "what an entry point's argument carries",
    [Tfm_EntryArgTokens, Tfm_EntryArgPosition, Tfm_EntryArgCount,
     Tfm_EntryArgKVCache, Tfm_EntryArgWeights, Tfm_EntryArgLength,
     Tfm_EntryArgScratch, Tfm_EntryArgStream]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_EntryArgAttr : EnumAttr<Tfm_Dialect, Tfm_EntryArg, "entry_arg"> {
  let summary = "What an entry point's argument carries";
  let description = [{
    Set on the arguments of the entry points (as the argument attribute
    `tfm.entry_arg`), read by later passes that treat them specially:
    `tokens` (token ids, `i32`), `position` (the absolute position of the
    first token, `index`), `count` (how many of a prefill chunk's tokens
    are real; 0 asks for no logits, `index`) and `kv_cache` (the key/value
    cache, updated in place), set by `tfm-kv-cache`; `length` (how many
    of an encoder's tokens are real, at least 1: the rest is padding that no
    real token attends to), set by `tfm-kv-cache` on `encode`; `weights` (the bytes
    the weights are views of), set by a target that binds weights to one
    buffer (`tfm-cpu-bind-weights`); `scratch` (the caller's bytes that
    hold the entry's intermediates, a 1-D `i8` memref), set by
    `tfm-cpu-plan-memory`; `stream` (the device queue the caller's work
    runs on, ABI 8's trailing `stream`: an `!llvm.ptr`), set by
    `tfm-gpu-use-entry-stream` on entries that launch device work.
    ```mlir
    func.func @prefill(%t: tensor<8xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, ...)
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_ModelKindDecoder : I32EnumAttrCase<"decoder", 0>;
def Tfm_ModelKindEncoder : I32EnumAttrCase<"encoder", 1>;
def Tfm_ModelKindEncoderDecoder : I32EnumAttrCase<"encoder_decoder", 2>;
// #tfm.model's `kind` (an enum parameter of the attribute, not an attribute
// of its own: no op carries it).
def Tfm_ModelKind : I32EnumAttr<"ModelKind",
    "what a network computes, and so which entry points it gets",
    [Tfm_ModelKindDecoder, Tfm_ModelKindEncoder, Tfm_ModelKindEncoderDecoder]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Module contracts
//===----------------------------------------------------------------------===//

def Tfm_ModelAttr : Tfm_Attr<"Model", "model"> {
  let summary = "What the network of a module is (module attribute tfm.model)";
  let description = [{
    Facts about the whole network that no op carries: `context_length`, the
    positions the model was trained for (the KV cache may hold fewer);
    `kind`, what the network computes, which decides its entry points
    (`decoder`: a causal language model over one token sequence, generated
    with a KV cache by `prefill` and `decode`; `encoder`: every position of
    one sequence at once, bidirectionally, with no cache, by `encode`;
    `encoder_decoder`: an encoder over a source sequence and a causal
    decoder over a target that attends to the encoder's output, by
    `encode`, `prefill` and `decode` sharing one cache); and `network`,
    the function computing the whole network over a sequence from position
    0 (until `tfm-kv-cache` replaces it by entry points). Set by the
    frontend's builder on the module, from the model's configuration: later
    stages read the kind here (`getModelKind`) and never infer it from the
    IR; `tfm-kv-cache` checks that the network fits it, and the dialect
    that the entries do.
    ```mlir
    module attributes {tfm.model = #tfm.model<context_length = 512, kind = decoder, network = @forward>} { ... }
    ```
  }];
  let parameters = (ins "int64_t":$context_length,
                        EnumParameter<Tfm_ModelKind>:$kind,
                        OptionalParameter<"FlatSymbolRefAttr">:$network);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_EncodeBucketAttr : Tfm_Attr<"EncodeBucket", "encode_bucket"> {
  let summary = "An encode entry over the first `rows` positions only";
  let description = [{
    One of an encoder's (or encoder-decoder's) shorter encode entries in
    `#tfm.entries`' `encode_buckets`: `entry` is `encode` compiled for a
    sequence of `rows` tokens instead of `context_length`. A call whose
    `length` fits `rows` runs it, so that encoding a short prompt costs its
    rows, not the whole context's.
    ```mlir
    #tfm.encode_bucket<rows = 32, entry = @encode_32>
    ```
  }];
  let parameters = (ins "int64_t":$rows, "FlatSymbolRefAttr":$entry);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_EntriesAttr : Tfm_Attr<"Entries", "entries"> {
  let summary = "The entry points of a compiled model (module attribute tfm.entries)";
  let description = [{
    Names the functions that the runtime calls and the static sizes they
    share, set by `tfm-kv-cache`. A decoder has `prefill`, which runs
    `prefill_chunk` tokens, and `decode`, which runs one; the KV cache holds
    `context_length` positions. An encoder has `encode` alone, which runs
    `context_length` tokens (the sequence it was compiled for) with no
    cache, and no `prefill_chunk`. An encoder-decoder has all three:
    `encode` runs the `context_length` source tokens once and stores each
    decoder layer's cross-attention keys and values in the cache, `prefill`
    and `decode` run the target tokens.
    `encode_buckets` (with `encode` only) lists shorter copies of `encode`,
    `#tfm.encode_bucket`s with strictly increasing `rows` below
    `context_length`: a call runs the first whose rows hold its `length`,
    and `encode` when none does.
    Later stages find the entries by these symbols, never by their names.
    ```mlir
    module attributes {tfm.entries = #tfm.entries<prefill = @prefill,
        decode = @decode, prefill_chunk = 32, context_length = 512>} { ... }
    module attributes {tfm.entries = #tfm.entries<encode = @encode,
        context_length = 128, encode_buckets = [
          #tfm.encode_bucket<rows = 32, entry = @encode_32>]>} { ... }
    ```
  }];
  let parameters = (ins OptionalParameter<"FlatSymbolRefAttr">:$prefill,
                        OptionalParameter<"FlatSymbolRefAttr">:$decode,
                        OptionalParameter<"FlatSymbolRefAttr">:$encode,
                        OptionalParameter<"int64_t">:$prefill_chunk,
                        "int64_t":$context_length,
                        OptionalParameter<"ArrayAttr">:$encode_buckets);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Every entry point the module has, in a fixed order (the buckets'
    /// after the others).
    ::llvm::SmallVector<::mlir::FlatSymbolRefAttr, 3> getEntryPoints() const;
    /// The shorter encode entries, by increasing rows (none: empty).
    ::llvm::SmallVector<EncodeBucketAttr> getEncodeBucketList() const;
  }];
}

def Tfm_TargetConfigAttrInterface : AttrInterface<"TargetConfigAttrInterface"> {
  let cppNamespace = "::mlir::tfm";
  let description = [{
    A backend's description of the machine it generates code for: the
    `config` of `#tfm.target`, which that backend's passes read (the CPU's
    is `#tfm.cpu_target`). Each backend defines its own attribute and
    names itself, so that `#tfm.target` can check that its config belongs
    to its backend.
  }];
  let methods = [
    InterfaceMethod<"The `--target` name of the backend this configures.",
                    "::llvm::StringRef", "getBackendName", (ins)>,
  ];
}

def Tfm_CpuTargetAttr : Tfm_Attr<"CpuTarget", "cpu_target",
    [DeclareAttrInterfaceMethods<Tfm_TargetConfigAttrInterface>]> {
  let summary = "The CPU code is generated for (the config of a cpu #tfm.target)";
  let description = [{
    Chosen by `tfmc --target=cpu --target-cpu=...`: `triple`, `cpu` and
    `features` are LLVM's target description, `vector_bits` the widest
    vector register and `vector_registers` how many there are (AVX-512: 512
    bits, 32 registers; AVX2: 256, 16).
    ```mlir
    #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4",
        features = "+avx512f,+fma", vector_bits = 512, vector_registers = 32>
    ```
  }];
  let parameters = (ins StringRefParameter<>:$triple,
                        StringRefParameter<>:$cpu,
                        StringRefParameter<>:$features,
                        "int64_t":$vector_bits,
                        "int64_t":$vector_registers);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_CudaTargetAttr : Tfm_Attr<"CudaTarget", "cuda_target",
    [DeclareAttrInterfaceMethods<Tfm_TargetConfigAttrInterface>]> {
  let summary = "The NVIDIA GPU code is generated for (the config of a cuda #tfm.target)";
  let description = [{
    Chosen by `tfmc --target=cuda --cuda-arch=...`: `arch` is the GPU the
    kernel configs are chosen for (its multiprocessor count and features)
    and whose PTX is embedded; `cubins` the archs a cubin is also assembled
    for (`ptxas`), comma-separated. The driver compiles the PTX for any
    newer GPU.
    ```mlir
    #tfm.cuda_target<arch = "sm_80", cubins = "sm_90">
    ```
  }];
  let parameters = (ins StringRefParameter<>:$arch,
                        StringRefParameter<>:$cubins);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_TargetAttr : Tfm_Attr<"Target", "target"> {
  let summary = "The machine code is generated for (module attribute tfm.target)";
  let description = [{
    Chosen by the driver's backend (`tfmc --target=NAME`) and read by
    target-specific passes instead of guessing from the host: `backend`
    names the code generator and `config` is that backend's description of
    the machine, an attribute of its own (`#tfm.cpu_target` for `cpu`)
    that names the same backend.
    ```mlir
    module attributes {tfm.target = #tfm.target<backend = "cpu",
        config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu",
        cpu = "znver4", features = "+avx512f,+fma", vector_bits = 512,
        vector_registers = 32>>}
    ```
  }];
  let parameters = (ins StringRefParameter<>:$backend,
                        AttrParameter<"::mlir::tfm::TargetConfigAttrInterface",
                                      "the backend's description of the machine">:$config);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_WeightsLayoutAttr : Tfm_Attr<"WeightsLayout", "weights_layout"> {
  let summary = "Where each weight lies in the weights blob (module attribute tfm.weights)";
  let description = [{
    Recorded by `tfm-cpu-bind-weights` when it turns `tfm.weight` reads into
    views of the blob argument: the blob's size in bytes, the fingerprint
    the produced executable checks its package against, and each weight's
    byte offset.
    ```mlir
    module attributes {tfm.weights = #tfm.weights_layout<bytes = 4096,
        hash = 1234, offsets = {token_embedding = 0 : i64}>}
    ```
  }];
  let parameters = (ins "int64_t":$bytes, "uint64_t":$hash,
                        "DictionaryAttr":$offsets);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // TFM_ATTRS_TD
