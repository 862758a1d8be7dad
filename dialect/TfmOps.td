//===- TfmOps.td - Operations of the tfm dialect ----------*- tablegen -*-===//
#ifndef TFM_OPS_TD
#define TFM_OPS_TD

include "dialect/TfmAttrs.td"
include "dialect/TfmWeightAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/TilingInterface.td"

// Activations are 2-D [sequence, features] f32 tensors.
def Tfm_Activation : 2DTensorOf<[F32]>;
// Keys or values: [keys, kv_heads * head_dim] (token-major) or
// [kv_heads, keys, head_dim] (head-major, the KV cache's layout). A cache
// may store them in f16 (`--kv-cache=f16`); attention computes in f32.
def Tfm_KeysOrValues : TensorRankOf<[F32, F16], [2, 3]>;
def Tfm_Vector : 1DTensorOf<[F32]>;
def Tfm_Matrix : 2DTensorOf<[F32]>;
// A projection's weight (or an embedding's table) may be stored in 16 bits;
// the product is computed in f32 (each weight element is extended when it
// is read).
def Tfm_WeightMatrix : 2DTensorOf<[F32, F16, BF16]>;

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

def Tfm_GlobalWeightOp : Tfm_Op<"global_weight", [Symbol, IsolatedFromAbove]> {
  let summary = "Declares a weight tensor stored in the model's weights blob";
  let description = [{
    Declares a named, read-only weight. Declarations appear at module level in
    blob order: the compiler lays the weights out one after the other, each
    at a 64-byte aligned offset, and the produced executable maps the blob.
    ```mlir
    tfm.global_weight @layers.0.attn.wq : tensor<288x288xf32>
    ```
    A weight built at compile time from model tensors names them in
    `stacked`: the tensors are stacked along dimension 0 in that order (the
    fused Q/K/V or gate/up matrices).
    ```mlir
    tfm.global_weight @layers.0.ffn.w_gate_up : tensor<1536x288xf32>
        {stacked = ["layers.0.ffn.w_gate", "layers.0.ffn.w_up"]}
    ```
    `stored` names the element types the model file holds the tensors in
    (`#tfm.stored<...>`, see its description) when they differ from the
    declared one. The network computes with the declared type
    (block-quantized values are exact in f32); a backend may keep the stored
    bytes (the CPU's `tfm-cpu-pack-weights` keeps a projection's panels in
    the stored type when no weight type is asked for and its kernels read
    it).
    ```mlir
    tfm.global_weight @layers.0.attn.wq : tensor<288x288xf32> {stored = #tfm.stored<q8_0>}
    ```
    `layout` is a backend's layout of a weight it declared for its kernels
    from the model tensors (an attribute implementing
    `WeightLayoutAttrInterface`, which verifies the declared type): the
    CPU's column panels of a projection's matrix (`#tfm_cpu.panels<...>`,
    written by `tfm-cpu-pack-weights`) hold it as value panels or as the
    quants, scales or minimums of blocks. The package writer lays such a
    weight out from the model tensors named by `stacked` (or its own name).
    ```mlir
    tfm.global_weight @wo.quants : tensor<18x9x8x16xi32>
        {layout = #tfm_cpu.panels<q8_0x4>, stacked = ["wo"]}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyStaticShapeTensor>:$type,
                       OptionalAttr<StrArrayAttr>:$stacked,
                       OptionalAttr<Tfm_StoredAttr>:$stored,
                       OptionalAttr<Tfm_WeightLayoutAttrInterface>:$layout);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
  let builders = [
    // A declaration of model tensors as the network reads them.
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::RankedTensorType":$type,
                   CArg<"::mlir::ArrayAttr", "{}">:$stacked), [{
      build($_builder, $_state, name, type, stacked, StoredAttr(),
            WeightLayoutAttrInterface());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The element types the model tensors of this weight are stored in,
    /// one per tensor it stacks (or one for the tensor it is); empty
    /// without `stored`.
    ::llvm::SmallVector<::tfmc::weights::ElementType> getStoredTypes();
  }];
}

def Tfm_WeightOp : Tfm_Op<"weight", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads a declared weight";
  let description = [{
    The value of the `tfm.global_weight` named by `name`; the result type must
    equal the declared type.
    ```mlir
    %wq = tfm.weight @layers.0.attn.wq : tensor<288x288xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Embeddings
//===----------------------------------------------------------------------===//

def Tfm_EmbeddingOp : Tfm_Op<"embedding", [Pure, InferTypeOpAdaptor]> {
  let summary = "Token embedding lookup";
  let description = [{
    `result[s, :] = table[tokens[s], :] * scale` (`scale` defaults to 1;
    Gemma multiplies its embeddings by `sqrt(hidden)` while its tied LM head
    reads the table unscaled). Token ids outside `[0, vocab)` are clamped
    into range (the runtime validates ids; clamping keeps a bad id from
    reading outside the weights). The table may be f16 or bf16 (a GPU's
    16-bit weights, shared with a tied LM head); each row is widened to f32
    as it is gathered.
    ```mlir
    %x = tfm.embedding %tokens, %table : tensor<8xi32>, tensor<512x64xf32> -> tensor<8x64xf32>
    %g = tfm.embedding %tokens, %table {scale = 8.0 : f32} : tensor<8xi32>, tensor<512x64xf32> -> tensor<8x64xf32>
    %h = tfm.embedding %tokens, %half : tensor<8xi32>, tensor<512x64xbf16> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins 1DTensorOf<[I32]>:$tokens, Tfm_WeightMatrix:$table,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $tokens `,` $table attr-dict `:` type($tokens) `,` type($table) `->` type($result)
  }];
}

def Tfm_PositionEmbeddingOp : Tfm_Op<"position_embedding",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Adds learned position embeddings";
  let description = [{
    `result[s, :] = input[s, :] + table[offset + s, :]`: token `s` of the
    input sits at absolute position `offset + s`. The caller guarantees
    `offset + sequence <= positions` (the runtime never runs past the context).
    ```mlir
    %y = tfm.position_embedding %x, %wpe[%pos] : tensor<8x768xf32>, tensor<1024x768xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_Matrix:$table, Index:$offset);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $table `[` $offset `]` attr-dict `:` type($input) `,` type($table)
  }];
  let hasVerifier = 1;
}

def Tfm_SinusoidalPositionOp : Tfm_Op<"sinusoidal_position",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Adds fixed sinusoidal position encodings";
  let description = [{
    The original Transformer's encodings, computed rather than learned:
    token `s` of the input sits at position `p = offset + s`, and with
    `f_i = exp(2i * -(ln(base) / d))` for the `d` features,
    `result[s, 2i] = input[s, 2i] + sin(p * f_i)` and
    `result[s, 2i + 1] = input[s, 2i + 1] + cos(p * f_i)`.
    The feature count must be even (sin and cos alternate in pairs); `base`
    is 10000 in the paper. There is no table, so no position limit.
    ```mlir
    %y = tfm.sinusoidal_position %x[%pos] {base = 1.0e+04 : f32} : tensor<8x768xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Index:$offset, F32Attr:$base);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = "$input `[` $offset `]` attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def Tfm_LayerNormOp : Tfm_Op<"layer_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "Layer normalisation over the feature dimension";
  let description = [{
    `y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias`, with the biased
    variance, over the last dimension; without `bias`, nothing is added.
    With `group_size = G`, each run of `G` consecutive features (one
    attention head's queries or keys) is normalised by its own mean and
    variance; `weight` and `bias` then have either `G` elements, shared by
    every group, or one per feature, each group its own (StableLM 2 12B's
    per-head norms).
    ```mlir
    %y = tfm.layer_norm %x, %w, %b {eps = 1.0e-05 : f32} : tensor<8x768xf32>, tensor<768xf32>, tensor<768xf32>
    %q = tfm.layer_norm %x, %w {eps = 1.0e-05 : f32, group_size = 32 : i64} : tensor<8x256xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_Vector:$weight,
                       Optional<Tfm_Vector>:$bias, F32Attr:$eps,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$group_size);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight) (`,` type($bias)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The features each mean and variance is taken over: `group_size`,
    /// else all of them.
    int64_t getNormalizedFeatures() {
      if (std::optional<uint64_t> group = getGroupSize())
        return int64_t(*group);
      return cast<RankedTensorType>(getInput().getType()).getDimSize(1);
    }
  }];
}

def Tfm_RMSNormOp : Tfm_Op<"rms_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "Root-mean-square normalisation over the feature dimension";
  let description = [{
    `y = x / sqrt(mean(x^2) + eps) * weight` over the last dimension; with
    `unit_offset`, `y = x / sqrt(mean(x^2) + eps) * (1 + weight)` (Gemma
    stores its norm weights as offsets from one). With `group_size = G`,
    each run of `G` consecutive features (one attention head's queries or
    keys: Qwen3, Gemma 3) is normalised by its own root mean square, and
    `weight` has `G` elements, shared by every group.
    ```mlir
    %y = tfm.rms_norm %x, %w {eps = 1.0e-05 : f32} : tensor<8x288xf32>, tensor<288xf32>
    %g = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, unit_offset} : tensor<8x288xf32>, tensor<288xf32>
    %q = tfm.rms_norm %x, %h {eps = 1.0e-06 : f32, group_size = 32 : i64} : tensor<8x288xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_Vector:$weight, F32Attr:$eps,
                       UnitAttr:$unit_offset,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$group_size);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight attr-dict `:` type($input) `,` type($weight)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The features each root mean square is taken over: `group_size`, else
    /// all of them.
    int64_t getNormalizedFeatures() {
      if (std::optional<uint64_t> group = getGroupSize())
        return int64_t(*group);
      return cast<RankedTensorType>(getInput().getType()).getDimSize(1);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Linear layers
//===----------------------------------------------------------------------===//

def Tfm_LinearOp : Tfm_Op<"linear", [Pure, InferTypeOpAdaptor]> {
  let summary = "Fully connected layer, weight stored [out, in]";
  let description = [{
    `result = input * transpose(weight) + bias` (the layout of
    `torch.nn.Linear`); the bias is optional. The weight may be f32, f16 or
    bf16; the product and the result are f32.
    ```mlir
    %q = tfm.linear %x, %wq : tensor<8x288xf32>, tensor<288x288xf32> -> tensor<8x288xf32>
    %h = tfm.linear %x, %w, %b : tensor<8x768xf32>, tensor<3072x768xf32>, tensor<3072xf32> -> tensor<8x3072xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_WeightMatrix:$weight,
                       Optional<Tfm_Vector>:$bias);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_LMHeadOp : Tfm_Op<"lm_head", [Pure, InferTypeOpAdaptor]> {
  let summary = "Projection from hidden states to vocabulary logits";
  let description = [{
    `logits = input * transpose(weight) + bias` with `weight : [vocab, dim]`:
    either its own tensor or, for tied embeddings, the token embedding table.
    The bias (Phi-2, GPT-J) is optional.
    ```mlir
    %logits = tfm.lm_head %x, %wte : tensor<8x64xf32>, tensor<512x64xf32> -> tensor<8x512xf32>
    %biased = tfm.lm_head %x, %w, %b : tensor<8x64xf32>, tensor<512x64xf32>, tensor<512xf32> -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_WeightMatrix:$weight,
                       Optional<Tfm_Vector>:$bias);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Tfm_UnaryElementwiseOp<string mnemonic, string formula>
    : Tfm_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let arguments = (ins Tfm_Activation:$input);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let description = "`y = " # formula # "`, elementwise.";
}

def Tfm_GeluOp : Tfm_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "GELU, tanh approximation (GPT-2's gelu_new) or exact (erf)";
  let description = [{
    Elementwise; `approximation` picks the formula (`#tfm.gelu<tanh>`, the
    default: `y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`;
    `#tfm.gelu<erf>`: `y = 0.5 * x * (1 + erf(x / sqrt(2)))`, BERT's).
    ```mlir
    %y = tfm.gelu %x : tensor<8x256xf32>
    %z = tfm.gelu %x {approximation = #tfm.gelu<erf>} : tensor<8x256xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input,
                       DefaultValuedAttr<Tfm_GeluApproximationAttr,
                           "::mlir::tfm::GeluApproximation::tanh">:$approximation);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfm_SoftCapOp : Tfm_Op<"soft_cap", [Pure, SameOperandsAndResultType]> {
  let summary = "Soft-capping: cap * tanh(x / cap), elementwise";
  let description = [{
    Squashes every element into `(-cap, cap)` smoothly: `y = cap * tanh(x /
    cap)`; nearly the identity well below the cap. Gemma 2 caps its
    vocabulary logits so (`final_logit_softcapping`).
    ```mlir
    %y = tfm.soft_cap %logits {cap = 3.0e+01 : f32} : tensor<1x256000xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, F32Attr:$cap);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tfm_SiluOp : Tfm_UnaryElementwiseOp<"silu", "x * sigmoid(x)"> {
  let summary = "SiLU / swish activation";
}

def Tfm_ReluOp : Tfm_UnaryElementwiseOp<"relu", "max(x, 0)"> {
  let summary = "ReLU activation (T5 v1.0's feed-forward)";
}

class Tfm_BinaryElementwiseOp<string mnemonic, string formula>
    : Tfm_Op<mnemonic, [Pure, SameOperandsAndResultType, Commutative]> {
  let arguments = (ins Tfm_Activation:$lhs, Tfm_Activation:$rhs);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let description = "`y = " # formula # "`, elementwise on equal shapes.";
}

def Tfm_AddOp : Tfm_BinaryElementwiseOp<"add", "lhs + rhs"> {
  let summary = "Elementwise sum (residual connections)";
}

def Tfm_MulOp : Tfm_BinaryElementwiseOp<"mul", "lhs * rhs"> {
  let summary = "Elementwise product (gating)";
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

def Tfm_MoERouteOp : Tfm_Op<"moe_route", [Pure, InferTypeOpAdaptor]> {
  let summary = "Each token's top-k experts and their weights";
  let description = [{
    For each token row `x` of `input : [sequence, dim]`, the router logits
    `router x` (`router : [experts, dim]`) choose `top_k` experts, the
    largest logit first and the lower index first among equal logits, and
    weigh them as `routing` says. `experts : [sequence, top_k]` holds the
    chosen experts' indices in that order, `weights : [sequence, top_k]`
    their weights. The routing is an op of its own, apart from the experts
    it chooses (`tfm.moe_experts`), so that a code generator can take the
    choice without the experts' products (Halide's `moe-routing` kernel).
    The result types are spelled out: the parser cannot infer them before
    it has read `top_k`.
    ```mlir
    %weights, %experts = tfm.moe_route %x, %router
        {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>}
        : tensor<8x64xf32>, tensor<4x64xf32>
        -> tensor<8x2xf32>, tensor<8x2xi32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_WeightMatrix:$router,
                       ConfinedAttr<I64Attr, [IntPositive]>:$top_k,
                       Tfm_RoutingAttr:$routing);
  let results = (outs 2DTensorOf<[F32]>:$weights,
                      2DTensorOf<[I32]>:$experts);
  let assemblyFormat = [{
    $input `,` $router attr-dict `:` type($input) `,` type($router) `->`
    type($weights) `,` type($experts)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumExperts() {
      return cast<RankedTensorType>(getRouter().getType()).getDimSize(0);
    }
  }];
}

def Tfm_MoEExpertsOp : Tfm_Op<"moe_experts", [Pure, InferTypeOpAdaptor]> {
  let summary = "The chosen SwiGLU experts of each token, weighed and summed";
  let description = [{
    For each token row `x` of `input : [sequence, dim]` and each of its
    choices `c` (`experts[s, c]`, weighed by `weights[s, c]`, as
    `tfm.moe_route` gives them), the result row is
    `sum_c weights[s, c] * down_e(silu(gate_e x) * up_e x)` with
    `e = experts[s, c]`, summed in the order of the choices. The experts'
    matrices are stacked along dimension 0: `gate` and `up` are
    `[experts * hidden, dim]` (expert `e`'s rows `[e * hidden, (e + 1) *
    hidden)`), `down` is `[experts * dim, hidden]`. Only the chosen
    experts' rows are read: a decode step of a model with 8 experts and
    `top_k = 2` reads a quarter of the expert weights. An index outside
    `[0, experts)` reads the nearest expert (clamped), never past the
    matrices. The matrices may be f16 or bf16 (a GPU's 16-bit weights),
    widened as they are read, as the router of `tfm.moe_route` may.
    ```mlir
    %y = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down
        : tensor<8x64xf32>, tensor<8x2xf32>, tensor<8x2xi32>,
          tensor<688x64xf32>, tensor<688x64xf32>, tensor<256x172xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, 2DTensorOf<[F32]>:$weights,
                       2DTensorOf<[I32]>:$experts, Tfm_WeightMatrix:$gate,
                       Tfm_WeightMatrix:$up, Tfm_WeightMatrix:$down);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weights `,` $experts `,` $gate `,` $up `,` $down attr-dict
    `:` type($input) `,` type($weights) `,` type($experts) `,` type($gate)
    `,` type($up) `,` type($down)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The experts stacked in `down`, `dim` rows each.
    int64_t getNumExperts() {
      return cast<RankedTensorType>(getDown().getType()).getDimSize(0) /
             cast<RankedTensorType>(getInput().getType()).getDimSize(1);
    }
    /// Choices per token.
    int64_t getTopK() {
      return cast<RankedTensorType>(getExperts().getType()).getDimSize(1);
    }
    /// The inner width of one expert.
    int64_t getExpertHidden() {
      return cast<RankedTensorType>(getDown().getType()).getDimSize(1);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Tfm_RopeOp : Tfm_Op<"rope", [Pure, InferTypeOpAdaptor]> {
  let summary = "Rotary position embedding";
  let description = [{
    Rotates each head's feature pairs of `input : [sequence, heads * head_dim]`
    by the angle `(offset + s) * theta^(-2i / head_dim)` for pair `i`. The
    `layout` names the pairing: `interleaved` rotates `(2i, 2i + 1)` (llama2.c,
    GGUF), `half_split` rotates `(i, i + head_dim / 2)` (Hugging Face LLaMA).
    A partial RoPE (GPT-NeoX, Phi-2, GPT-J) sets `rotary_dim` < `head_dim`:
    only each head's first `rotary_dim` features rotate, paired within them
    (`(i, i + rotary_dim / 2)` for `half_split`), at the angles
    `theta^(-2i / rotary_dim)`; the others pass through.
    A scaled RoPE (linear, llama3, YaRN, LongRoPE: compiler/spec/RopeScaling.h)
    states its `frequencies`, one per rotated pair, which replace
    `theta^(-2i / rotary_dim)`, and may scale cos and sin by
    `attention_factor` (YaRN's and LongRoPE's magnitude correction).
    ```mlir
    %q2 = tfm.rope %q[%pos] {head_dim = 8 : i64, theta = 1.0e+04 : f32,
                             layout = #tfm.rope_layout<interleaved>} : tensor<8x64xf32>
    %k2 = tfm.rope %k[%pos] {head_dim = 4 : i64, theta = 1.0e+04 : f32,
                             layout = #tfm.rope_layout<half_split>,
                             frequencies = array<f32: 1.0, 0.0125>,
                             attention_factor = 1.1 : f32} : tensor<8x16xf32>
    %k3 = tfm.rope %k[%pos] {head_dim = 8 : i64, rotary_dim = 4 : i64,
                             theta = 1.0e+04 : f32,
                             layout = #tfm.rope_layout<half_split>} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Index:$offset,
                       ConfinedAttr<I64Attr, [IntPositive]>:$head_dim,
                       F32Attr:$theta, Tfm_RopeLayoutAttr:$layout,
                       OptionalAttr<DenseF32ArrayAttr>:$frequencies,
                       OptionalAttr<F32Attr>:$attention_factor,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$rotary_dim);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = "$input `[` $offset `]` attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The features of each head that rotate: `rotary_dim`, else all.
    int64_t getRotatedFeatures() {
      return getRotaryDim().value_or(getHeadDim());
    }
  }];
}

// Accessors shared by the attention ops.
defvar Tfm_AttentionAccessors = [{
    int64_t getHeadDim() {
      return getQuery().getType().getDimSize(1) / getNumHeads();
    }
    /// Whether keys and values are [kv_heads, keys, head_dim].
    bool isHeadMajor() {
      return cast<RankedTensorType>(getKey().getType()).getRank() == 3;
    }
    /// The dimension of `key` and `value` that indexes keys.
    unsigned getKeysDim() { return isHeadMajor() ? 1 : 0; }
    /// The factor of the query-key products: `scale`, else 1/sqrt(head_dim).
    double getScoreScale() {
      if (std::optional<llvm::APFloat> scale = getScale())
        return scale->convertToDouble();
      return 1.0 / std::sqrt(double(getHeadDim()));
    }
    /// The cap of the scaled scores (`softcap`), if they are capped.
    std::optional<double> getScoreCap() {
      if (std::optional<llvm::APFloat> cap = getSoftcap())
        return cap->convertToDouble();
      return std::nullopt;
    }
}];

def Tfm_AttentionOp : Tfm_Op<"attention", [Pure, InferTypeOpAdaptor,
                                            AttrSizedOperandSegments]> {
  let summary = "Scaled dot-product multi-head attention (MHA, GQA, MQA)";
  let description = [{
    `query : [sequence, num_heads * head_dim]` attends over
    `key, value : [keys, num_kv_heads * head_dim]` (token-major, as the
    projections produce them) or `[num_kv_heads, keys, head_dim]`
    (head-major, as `tfm-kv-cache` stores them: each head's keys are
    contiguous); query head `h` reads key/value head
    `h / (num_heads / num_kv_heads)`. Scores are scaled by `scale`,
    `1 / sqrt(head_dim)` when absent (T5 sets `scale = 1.0`). With
    `softcap = C` (Gemma 2), each scaled score `x` becomes
    `C * tanh(x / C)` before any bias or mask applies. Query row `s` sits at absolute position
    `offset + s` and key row `j` at position `j`; `mask` says which keys a
    query sees (`#tfm.mask<causal>`: `j <= offset + s`;
    `#tfm.mask<bidirectional>`: all; `#tfm.mask<sliding_window>` with
    `window = W`: `offset + s - W < j <= offset + s`). With `ring = R`
    (head-major keys only, a sliding window's rolling KV cache), the keys
    are a ring of `R` slots that each hold the latest position congruent to
    their index: seen from the query at position `p`, key row `j` is the
    key of position `p - ((p - j) mod R)`, visible when that is at least 0
    and inside the window; `R >= W + sequence - 1` keeps every position a
    query of the sequence sees in the ring. With `alibi(slopes)` (ALiBi,
    BLOOM), head `h` adds `slopes[h] * (key position - query position)` to
    its scaled scores (BLOOM adds `slopes[h] * key position`, which differs
    by a constant per query row: the softmax is the same). With
    `relative_bias(table)` (T5), `table : [num_buckets, num_heads]` and
    `max_distance`, head `h` adds `table[bucket(key position - query
    position), h]` to its scaled scores, with transformers' bucket
    function: bidirectional buckets for a `bidirectional` mask (half of the
    buckets for keys after the query), causal ones for a `causal` mask
    (keys after the query are hidden anyway); of the `n` buckets of a
    side, distances below `n / 2` have one bucket each and larger ones
    share the rest logarithmically up to `max_distance` (beyond it, the
    last bucket). `cache` says what
    generation caches for it (`#tfm.cache_role<self>`: its own keys and
    values per position; `cross`: keys and values of another sequence,
    computed once; `none`: nothing). Keys and values share one element
    type: f32, or f16 when read from an f16 KV cache (each element is
    widened to f32 as it is read; scores and sums stay f32).
    ```mlir
    %o = tfm.attention %q, %k, %v[%pos] {num_heads = 8 : i64, num_kv_heads = 4 : i64,
        mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>}
        : tensor<8x64xf32>, tensor<8x32xf32>, tensor<8x32xf32>
    %c = tfm.attention %q, %ck, %cv[%pos] {num_heads = 8 : i64, num_kv_heads = 4 : i64,
        mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>}
        : tensor<8x64xf32>, tensor<4x?x8xf32>, tensor<4x?x8xf32>
    %a = tfm.attention %q, %k, %v[%pos] alibi(%slopes : tensor<8xf32>) {num_heads = 8 : i64,
        num_kv_heads = 8 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>}
        : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
    %t = tfm.attention %q, %k, %v[%pos] relative_bias(%table : tensor<32x8xf32>)
        {num_heads = 8 : i64, num_kv_heads = 8 : i64, max_distance = 128 : i64,
         scale = 1.0 : f32, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>}
        : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
    %g = tfm.attention %q, %k, %v[%pos] {num_heads = 8 : i64, num_kv_heads = 4 : i64,
        softcap = 5.0e+01 : f32, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>}
        : tensor<8x64xf32>, tensor<8x32xf32>, tensor<8x32xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$query, Tfm_KeysOrValues:$key,
                       Tfm_KeysOrValues:$value, Index:$offset,
                       Optional<Tfm_Vector>:$slopes,
                       Optional<Tfm_Matrix>:$relative_bias,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_kv_heads,
                       Tfm_MaskKindAttr:$mask,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$window,
                       Tfm_CacheRoleAttr:$cache,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$ring,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$max_distance,
                       OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<F32Attr>:$softcap);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value `[` $offset `]`
    (`alibi` `(` $slopes^ `:` type($slopes) `)`)?
    (`relative_bias` `(` $relative_bias^ `:` type($relative_bias) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = Tfm_AttentionAccessors;
}

//===----------------------------------------------------------------------===//
// Kernels: destination-style, tileable ops that code generation schedules
//===----------------------------------------------------------------------===//

def Tfm_AttentionKernelOp : Tfm_Op<"attention_kernel", [
    Pure, DestinationStyleOpInterface, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<TilingInterface,
        ["getLoopIteratorTypes", "getIterationDomain",
         "getTiledImplementation", "getResultTilePosition"]>]> {
  let summary = "Attention as one destination-style, tileable kernel";
  let description = [{
    Computes exactly `tfm.attention` (same operands, ALiBi `slopes`, T5's
    `relative_bias` table and `max_distance`, `scale`, `softcap`, `mask`,
    `window` and `ring`)
    into `init`, in the form code generation schedules: it is
    destination-style and implements `TilingInterface` over its two
    parallel loops, query rows and heads (as `iree_linalg_ext.attention`),
    so that upstream tiling applies. A tile of rows `[r, r + R)` and heads
    `[h, h + H)` is the same op over those query rows and columns, the
    key/value heads they read, their heads' ALiBi slopes or relative bias
    columns, and the offset
    `offset + r`; head tiles must
    cover whole groups of heads that share a key/value head, or lie within
    one. Produced by `convert-tfm-to-linalg`; the CPU codegen tiles it into
    one flash-attention kernel per (row, head) (`tfm-cpu-tile-attention`),
    any target can decompose it into linalg ops
    (`tfm-decompose-attention`).
    ```mlir
    %o = tfm.attention_kernel ins(%q, %k, %v : tensor<8x64xf32>, tensor<4x?x8xf32>, tensor<4x?x8xf32>)
        offset(%pos) outs(%init : tensor<8x64xf32>)
        {num_heads = 8 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>} -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$query, Tfm_KeysOrValues:$key,
                       Tfm_KeysOrValues:$value, Index:$offset,
                       Optional<Tfm_Vector>:$slopes,
                       Optional<Tfm_Matrix>:$relative_bias,
                       Tfm_Activation:$init,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_kv_heads,
                       Tfm_MaskKindAttr:$mask,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$window,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$ring,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$max_distance,
                       OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<F32Attr>:$softcap);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,`
    type($value) `)` `offset` `(` $offset `)`
    (`alibi` `(` $slopes^ `:` type($slopes) `)`)?
    (`relative_bias` `(` $relative_bias^ `:` type($relative_bias) `)`)?
    `outs` `(` $init `:`
    type($init) `)` attr-dict `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = Tfm_AttentionAccessors # [{
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
  }];
}

#endif // TFM_OPS_TD
