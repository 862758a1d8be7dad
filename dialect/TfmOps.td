//===- TfmOps.td - Operations of the tfm dialect ----------*- tablegen -*-===//
#ifndef TFM_OPS_TD
#define TFM_OPS_TD

include "dialect/TfmAttrs.td"
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
// A projection's weight may be stored in 16 bits; the product is computed in
// f32 (each weight element is extended when it is read).
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
    A `panels` weight is a `[rows, columns]` matrix (the model tensor of the
    same name, or the `stacked` ones) stored as column panels for
    `tfm.packed_linear`: the type is `[P, columns, W]` and element `[p, k, j]`
    holds row `p * W + j`, column `k` (zero past the last row, including
    whole zero panels that `tfm-pack-weights` may add to round P up). A
    matrix-multiply micro-kernel then reads `W` consecutive output rows of
    one column with one vector load.
    ```mlir
    tfm.global_weight @output : tensor<32x288x16xf32> {panels}
    ```
    Block-quantized panels (`block_quant` = `"q8_0"` or `"q4_0"`, GGUF's
    formats: blocks of 32 values along each row sharing one scale) are two
    declarations of the same matrix, read together by `tfm.quantized_linear`:
    the quants, `[P, KB, Q, W]` i8 with `KB = columns / 32` blocks per row
    (Q8_0: `Q = 32`, byte `[p, b, i, j]` is the int8 of row `p * W + j`,
    column `b * 32 + i`; Q4_0: `Q = 16`, its low nibble is column
    `b * 32 + i` and its high nibble column `b * 32 + 16 + i`, each the
    value plus 8), and, marked `block_scales`, the `[P, KB, W]` f16 scales.
    ```mlir
    tfm.global_weight @wo.quants : tensor<18x9x32x16xi8> {block_quant = "q8_0", panels}
    tfm.global_weight @wo.scales : tensor<18x9x16xf16> {block_quant = "q8_0", block_scales, panels}
    ```
    `block_quant = "q8_0x4"` is Q8_0 with each row's quants four columns
    to a lane, the layout of the kernel over int8 inputs (a lane of a dot
    product instruction such as AVX-512 VNNI's `vpdpbusd` reads four bytes
    of one row): quants `[P, KB, 8, W]` i32 whose element `[p, b, i, j]`
    holds, in byte `t` (little-endian), the int8 of row `p * W + j`, column
    `b * 32 + 4 * i + t`; the scales as Q8_0's.
    ```mlir
    tfm.global_weight @wo.quants : tensor<18x9x8x16xi32> {block_quant = "q8_0x4", panels}
    ```
    `block_quant = "q4_0x4"` is Q4_0 laid out the same way: quants
    `[P, KB, 4, W]` i32 whose element `[p, b, i, j]` holds, in byte `t`,
    Q4_0's byte `4 * i + t` of row `p * W + j`, block `b` (low nibble:
    column `b * 32 + 4 * i + t`, high nibble: column `b * 32 + 16 + 4 * i +
    t`); the scales as Q4_0's. Masking a lane's low or high nibbles gives
    four unsigned bytes of four consecutive columns.
    ```mlir
    tfm.global_weight @wo.quants : tensor<18x9x4x16xi32> {block_quant = "q4_0x4", panels}
    ```
    `block_quant = "kquant"` holds GGUF's k-quants (Q4_K, Q5_K, Q6_K)
    unpacked: the quants `[P, KB, B, W]` i8 with `B` = 16 or 32 values per
    block (`KB = columns / B`), one a byte; the scales (`block_scales`) and
    the minimums (`block_mins`), `[P, KB, W]` f32 each. Value `[p, k, j]`
    is `q * d - m` for the quant, scale and minimum of its block, exactly
    ggml's dequantized value. `kquant4` holds a matrix of Q4_K tensors the
    same way with its 4-bit quants two a byte, as Q4_0's: quants
    `[P, KB, 16, W]` for blocks of 32, the low nibble of byte `[p, b, i, j]`
    column `b * 32 + i`, the high nibble column `b * 32 + 16 + i`.
    ```mlir
    tfm.global_weight @wq.quants : tensor<16x8x32x16xi8> {block_quant = "kquant", panels}
    tfm.global_weight @wq.scales : tensor<16x8x16xf32> {block_quant = "kquant", block_scales, panels}
    tfm.global_weight @wq.mins : tensor<16x8x16xf32> {block_mins, block_quant = "kquant", panels}
    ```
    `stored` names the element type the model file holds the tensor in
    (`f32`, `f16`, `bf16`, `q8_0`, `q4_0`, `q4_k`, `q5_k`, `q6_k`) when it
    differs from the declared one; a stack has it when all its tensors share
    it, and `kquant` when they are k-quants of different kinds (the Q/K/V
    of a Q4_K_M file, Q4_K and Q6_K). The network computes with the declared type (block-quantized values
    are exact in f32); `tfm-cpu-pack-weights` keeps a projection's panels in
    the stored type when no `weight-type` is asked for and its kernels read
    that type, so the binary reads the bytes the file holds.
    ```mlir
    tfm.global_weight @layers.0.attn.wq : tensor<288x288xf32> {stored = "q8_0"}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyStaticShapeTensor>:$type,
                       OptionalAttr<StrArrayAttr>:$stacked,
                       UnitAttr:$panels,
                       DefaultValuedStrAttr<StrAttr, "">:$block_quant,
                       UnitAttr:$block_scales,
                       UnitAttr:$block_mins,
                       DefaultValuedStrAttr<StrAttr, "">:$stored);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The verifier's checks of a `block_quant` declaration.
    ::mlir::LogicalResult verifyBlockQuantized();
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
    reading outside the weights).
    ```mlir
    %x = tfm.embedding %tokens, %table : tensor<8xi32>, tensor<512x64xf32> -> tensor<8x64xf32>
    %g = tfm.embedding %tokens, %table {scale = 8.0 : f32} : tensor<8xi32>, tensor<512x64xf32> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins 1DTensorOf<[I32]>:$tokens, Tfm_Matrix:$table,
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
    variance, over the last dimension.
    ```mlir
    %y = tfm.layer_norm %x, %w, %b {eps = 1.0e-05 : f32} : tensor<8x768xf32>, tensor<768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_Vector:$weight,
                       Tfm_Vector:$bias, F32Attr:$eps);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias attr-dict `:` type($input) `,` type($weight) `,` type($bias)
  }];
  let hasVerifier = 1;
}

def Tfm_RMSNormOp : Tfm_Op<"rms_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "Root-mean-square normalisation over the feature dimension";
  let description = [{
    `y = x / sqrt(mean(x^2) + eps) * weight` over the last dimension; with
    `unit_offset`, `y = x / sqrt(mean(x^2) + eps) * (1 + weight)` (Gemma
    stores its norm weights as offsets from one).
    ```mlir
    %y = tfm.rms_norm %x, %w {eps = 1.0e-05 : f32} : tensor<8x288xf32>, tensor<288xf32>
    %g = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, unit_offset} : tensor<8x288xf32>, tensor<288xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_Vector:$weight, F32Attr:$eps,
                       UnitAttr:$unit_offset);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight attr-dict `:` type($input) `,` type($weight)
  }];
  let hasVerifier = 1;
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
    `logits = input * transpose(weight)` with `weight : [vocab, dim]`: either
    its own tensor or, for tied embeddings, the token embedding table.
    ```mlir
    %logits = tfm.lm_head %x, %wte : tensor<8x64xf32>, tensor<512x64xf32> -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_WeightMatrix:$weight);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight attr-dict `:` type($input) `,` type($weight) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_PackedLinearOp : Tfm_Op<"packed_linear", [Pure, InferTypeOpAdaptor]> {
  let summary = "Fully connected layer over a weight stored as column panels";
  let description = [{
    `result = input * transpose(weight)[:, 0:out_features] + bias`, where the
    `[out_features, in]` weight is stored as `[P, in, W]` panels (see
    `tfm.global_weight`'s `panels`): `P * W` covers `out_features`, and the
    rows past it are zero padding, which the result leaves out. Produced
    by `tfm-pack-weights` from `tfm.linear` and `tfm.lm_head`. f16 and bf16
    panels are widened to f32 as they are read (the product and the sum are
    f32).
    ```mlir
    %logits = tfm.packed_linear %x, %w {out_features = 500 : i64}
        : tensor<8x64xf32>, tensor<32x64x16xf32> -> tensor<8x500xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input,
                       3DTensorOf<[F32, F16, BF16]>:$weight,
                       Optional<Tfm_Vector>:$bias, I64Attr:$out_features);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_QuantizedLinearOp : Tfm_Op<"quantized_linear",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "Fully connected layer over block-quantized column panels";
  let description = [{
    `tfm.packed_linear` over a weight stored in blocks that share a scale
    (`format`, see `tfm.global_weight`'s `block_quant`): `quants`, `scales`
    and, for the k-quants, `mins` are the panel declarations of the
    `[out_features, in]` matrix.
    - `q8_0` / `q4_0` (GGUF's formats): quants `[P, in / 32, Q, W]` i8
      (Q = 32 for Q8_0, 16 for Q4_0, two values a byte) and scales
      `[P, in / 32, W]` f16; weight `[o, k]` is `q * d` (Q8_0) or
      `(nibble - 8) * d` (Q4_0) with `d` the scale of its block.
    - `q8_0x4`: Q8_0 with quants `[P, in / 32, 8, W]` i32, four int8 a lane
      (see `tfm.global_weight`). Its kernel quantizes the inputs to int8 per
      block of 32 and sums integer products.
    - `q4_0x4`: Q4_0 with quants `[P, in / 32, 4, W]` i32, four bytes (eight
      values) a lane; its kernel is `q8_0x4`'s over the masked nibbles.
    - `kquant` (GGUF's Q4_K, Q5_K and Q6_K, unpacked): quants
      `[P, in / B, B, W]` i8 with B = 16 or 32 values a block, scales and
      mins `[P, in / B, W]` f32; weight `[o, k]` is `q * d - m`, or `q * d`
      without `mins` (a Q6_K matrix, whose minimums are all zero).
    - `kquant4` (Q4_K): as `kquant` with B = 32 and the quants two a byte,
      `[P, in / 32, 16, W]` (Q4_0's nibble order).
    Each weight is dequantized in registers as it is read, and the product
    and the sum are f32. Produced by `tfm-cpu-pack-weights`.
    ```mlir
    %y = tfm.quantized_linear %x, %q, %d {format = "q4_0", out_features = 288 : i64}
        : tensor<8x288xf32>, tensor<18x9x16x16xi8>, tensor<18x9x16xf16> -> tensor<8x288xf32>
    %z = tfm.quantized_linear %x, %kq, %kd mins(%km : tensor<16x16x16xf32>) {format = "kquant", out_features = 256 : i64}
        : tensor<8x256xf32>, tensor<16x16x16x16xi8>, tensor<16x16x16xf32> -> tensor<8x256xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, 4DTensorOf<[I8, I32]>:$quants,
                       3DTensorOf<[F16, F32]>:$scales,
                       Optional<3DTensorOf<[F32]>>:$mins,
                       Optional<Tfm_Vector>:$bias,
                       StrAttr:$format, I64Attr:$out_features);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $quants `,` $scales (`,` $bias^)?
    (`mins` `(` $mins^ `:` type($mins) `)`)? attr-dict `:` type($input) `,`
    type($quants) `,` type($scales) (`,` type($bias)^)? `->` type($result)
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

def Tfm_MoEOp : Tfm_Op<"moe", [Pure, InferTypeOpAdaptor]> {
  let summary = "Mixture of SwiGLU experts with top-k routing";
  let description = [{
    For each token row `x` of `input : [sequence, dim]`: the router logits
    `router x` (`router : [experts, dim]`) choose `top_k` experts and their
    weights `w_e` as `routing` says, and the result row is
    `sum_e w_e * down_e(silu(gate_e x) * up_e x)`. The experts' matrices
    are stacked along dimension 0: `gate` and `up` are `[experts * hidden,
    dim]` (expert `e`'s rows `[e * hidden, (e + 1) * hidden)`), `down` is
    `[experts * dim, hidden]`. Only the chosen experts' rows are read: a
    decode step of a model with 8 experts and `top_k = 2` reads a quarter
    of the expert weights.
    ```mlir
    %y = tfm.moe %x, %router, %gate, %up, %down
        {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>}
        : tensor<8x64xf32>, tensor<4x64xf32>, tensor<688x64xf32>,
          tensor<688x64xf32>, tensor<256x172xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Tfm_Matrix:$router,
                       Tfm_Matrix:$gate, Tfm_Matrix:$up, Tfm_Matrix:$down,
                       ConfinedAttr<I64Attr, [IntPositive]>:$top_k,
                       Tfm_RoutingAttr:$routing);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = [{
    $input `,` $router `,` $gate `,` $up `,` $down attr-dict `:`
    type($input) `,` type($router) `,` type($gate) `,` type($up) `,`
    type($down)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumExperts() {
      return cast<RankedTensorType>(getRouter().getType()).getDimSize(0);
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
    ```mlir
    %q2 = tfm.rope %q[%pos] {head_dim = 8 : i64, theta = 1.0e+04 : f32,
                             layout = #tfm.rope_layout<interleaved>} : tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Tfm_Activation:$input, Index:$offset,
                       ConfinedAttr<I64Attr, [IntPositive]>:$head_dim,
                       F32Attr:$theta, Tfm_RopeLayoutAttr:$layout);
  let results = (outs Tfm_Activation:$result);
  let assemblyFormat = "$input `[` $offset `]` attr-dict `:` type($input)";
  let hasVerifier = 1;
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
    `1 / sqrt(head_dim)` when absent (T5 sets `scale = 1.0`). Query row `s` sits at absolute position
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
                       OptionalAttr<F32Attr>:$scale);
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
    `relative_bias` table and `max_distance`, `scale`, `mask`, `window` and
    `ring`)
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
                       OptionalAttr<F32Attr>:$scale);
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
