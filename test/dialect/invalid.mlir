// RUN: tfmc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{weights are f32, f16 or bf16 tensors}}
tfm.global_weight @w : tensor<4xi32>

// -----

// The element types are compiler/weights' (ElementType.td).
// expected-error @+2 {{expected one of [f32, f16, bf16, q8_0, q4_0, q4_k, q5_k, q6_k] for the element type a weight is stored in, got: q3_k}}
// expected-error @+1 {{failed to parse Tfm_StoredAttr parameter 'types'}}
tfm.global_weight @w : tensor<4x32xf32> {stored = #tfm.stored<q3_k>}

// -----

// One type for all the tensors, or one per stacked tensor.
// expected-error @+1 {{stored has 2 types for its 3 tensors (one, or one per tensor)}}
tfm.global_weight @wqkv : tensor<12x32xf32> {stacked = ["wq", "wk", "wv"], stored = #tfm.stored<q4_k, q6_k>}

// -----

// At least one element type.
// expected-error @+2 {{expected keyword for the element type a weight is stored in}}
// expected-error @+1 {{failed to parse Tfm_StoredAttr parameter 'types'}}
tfm.global_weight @w : tensor<4x32xf32> {stored = #tfm.stored<>}

// -----

func.func @undeclared_weight() -> tensor<4xf32> {
  // expected-error @+1 {{'missing' does not name a tfm.global_weight}}
  %w = tfm.weight @missing : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

tfm.global_weight @w : tensor<4xf32>
func.func @weight_type_mismatch() -> tensor<8xf32> {
  // expected-error @+1 {{does not match the declared type 'tensor<4xf32>'}}
  %w = tfm.weight @w : tensor<8xf32>
  return %w : tensor<8xf32>
}

// -----

func.func @embedding_result(%t: tensor<4xi32>, %table: tensor<32x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<4x16xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  %x = tfm.embedding %t, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

func.func @position_table_features(%x: tensor<4x16xf32>, %table: tensor<64x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{table has 8 features but the input has 16}}
  %y = tfm.position_embedding %x, %table[%pos] : tensor<4x16xf32>, tensor<64x8xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @position_table_too_short(%x: tensor<4x16xf32>, %table: tensor<2x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{table has 2 positions, fewer than the 4 tokens of the input}}
  %y = tfm.position_embedding %x, %table[%pos] : tensor<4x16xf32>, tensor<2x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @sinusoidal_odd_features(%x: tensor<4x15xf32>, %pos: index) -> tensor<4x15xf32> {
  // expected-error @+1 {{needs an even feature count for its sin/cos pairs, got 15}}
  %y = tfm.sinusoidal_position %x[%pos] {base = 1.0e4 : f32} : tensor<4x15xf32>
  return %y : tensor<4x15xf32>
}

// -----

func.func @sinusoidal_base_not_positive(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{base must be positive and finite, got 0}}
  %y = tfm.sinusoidal_position %x[%pos] {base = 0.0 : f32} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rms_norm_weight(%x: tensor<4x16xf32>, %w: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{weight has 8 elements but the input has 16 features}}
  %y = tfm.rms_norm %x, %w {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<8xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @layer_norm_bias(%x: tensor<4x16xf32>, %w: tensor<16xf32>, %b: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{bias has 8 elements but weight has 16}}
  %y = tfm.layer_norm %x, %w, %b {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<16xf32>, tensor<8xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @layer_norm_weight(%x: tensor<4x16xf32>, %w: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{weight has 8 elements but the input has 16 features}}
  %y = tfm.layer_norm %x, %w {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<8xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @layer_norm_group(%x: tensor<4x16xf32>, %w: tensor<6xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{input features (16) are not a multiple of group_size (6)}}
  %y = tfm.layer_norm %x, %w {eps = 1.0e-5 : f32, group_size = 6 : i64} : tensor<4x16xf32>, tensor<6xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @layer_norm_group_weight(%x: tensor<4x16xf32>, %w: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{weight has 8 elements but neither a group's features (4) nor the input's (16)}}
  %y = tfm.layer_norm %x, %w {eps = 1.0e-5 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<8xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @linear_features(%x: tensor<4x16xf32>, %w: tensor<8x12xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{weight has 12 input features but the input has 16}}
  %y = tfm.linear %x, %w : tensor<4x16xf32>, tensor<8x12xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @linear_bias(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{bias has 4 elements but the layer has 8 outputs}}
  %y = tfm.linear %x, %w, %b : tensor<4x16xf32>, tensor<8x16xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @lm_head_bias(%x: tensor<4x8xf32>, %w: tensor<32x8xf32>, %b: tensor<16xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{bias has 16 elements but the layer has 32 outputs}}
  %y = tfm.lm_head %x, %w, %b : tensor<4x8xf32>, tensor<32x8xf32>, tensor<16xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @lm_head_features(%x: tensor<4x16xf32>, %w: tensor<32x8xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{weight has 8 input features but the input has 16}}
  %y = tfm.lm_head %x, %w : tensor<4x16xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @binary_shapes(%a: tensor<4x16xf32>, %b: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %y = "tfm.add"(%a, %b) : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @unary_rank(%a: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{must be 2D tensor of 32-bit float values}}
  %y = tfm.gelu %a : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

func.func @gelu_form(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{expected ::mlir::tfm::GeluApproximation to be one of: tanh, erf}}
  // expected-error @+1 {{failed to parse Tfm_GeluApproximationAttr parameter 'value'}}
  %y = tfm.gelu %a {approximation = #tfm.gelu<sigmoid>} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_odd_head(%x: tensor<4x15xf32>, %pos: index) -> tensor<4x15xf32> {
  // expected-error @+1 {{head_dim must be even to form rotation pairs, got 5}}
  %y = tfm.rope %x[%pos] {head_dim = 5 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<interleaved>} : tensor<4x15xf32>
  return %y : tensor<4x15xf32>
}

// -----

func.func @rope_head_multiple(%x: tensor<4x18xf32>, %pos: index) -> tensor<4x18xf32> {
  // expected-error @+1 {{input features (18) are not a multiple of head_dim (4)}}
  %y = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>} : tensor<4x18xf32>
  return %y : tensor<4x18xf32>
}

// -----

func.func @rms_norm_group_divides(%x: tensor<4x18xf32>, %w: tensor<4xf32>) -> tensor<4x18xf32> {
  // expected-error @+1 {{input features (18) are not a multiple of group_size (4)}}
  %y = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, group_size = 4 : i64} : tensor<4x18xf32>, tensor<4xf32>
  return %y : tensor<4x18xf32>
}

// -----

func.func @rms_norm_group_weight(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{weight has 16 elements but the input has 4 features}}
  %y = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_frequencies_count(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{has 3 frequencies but rotates 4 features, 2 pairs}}
  %y = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>, frequencies = array<f32: 1.0, 0.5, 0.25>} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_partial_frequencies_count(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{has 4 frequencies but rotates 4 features, 2 pairs}}
  %y = tfm.rope %x[%pos] {head_dim = 8 : i64, rotary_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>, frequencies = array<f32: 1.0, 0.5, 0.25, 0.125>} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_rotary_dim_odd(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{rotary_dim (3) must be even and at most head_dim (8)}}
  %y = tfm.rope %x[%pos] {head_dim = 8 : i64, rotary_dim = 3 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_rotary_dim_wide(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{rotary_dim (16) must be even and at most head_dim (8)}}
  %y = tfm.rope %x[%pos] {head_dim = 8 : i64, rotary_dim = 16 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<interleaved>} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_frequency_negative(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{frequency -5.000000e-01 is not a finite number >= 0}}
  %y = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>, frequencies = array<f32: 1.0, -0.5>} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_attention_factor_zero(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{attention_factor 0.000000e+00 is not a finite number > 0}}
  %y = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>, attention_factor = 0.0 : f32} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @rope_layout_unknown(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+2 {{expected ::mlir::tfm::RopeLayout to be one of: interleaved, half_split}}
  // expected-error @+1 {{failed to parse Tfm_RopeLayoutAttr parameter}}
  %y = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<diagonal>} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @attention_heads(%q: tensor<4x18xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %pos: index) -> tensor<4x18xf32> {
  // expected-error @+1 {{query features (18) are not a multiple of num_heads (4)}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x18xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x18xf32>
}

// -----

func.func @attention_groups(%q: tensor<4x16xf32>, %k: tensor<4x12xf32>, %v: tensor<4x12xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{num_heads (4) is not a multiple of num_kv_heads (3)}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 3 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x12xf32>, tensor<4x12xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_kv_features(%q: tensor<4x16xf32>, %k: tensor<4x4xf32>, %v: tensor<4x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{key and value must have num_kv_heads * head_dim = 8 features}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_kv_rows(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %v: tensor<6x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{key has 4 rows but value has 6}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<6x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_kv_ranks(%q: tensor<4x16xf32>, %k: tensor<2x4x4xf32>, %v: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{key has rank 3 but value has rank 2}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<2x4x4xf32>, tensor<4x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_kv_element_types(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf16>, %v: tensor<2x?x4xf32>, %pos: index) -> tensor<1x16xf32> {
  // expected-error @+1 {{key has element type 'f16' but value has element type 'f32'}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<1x16xf32>, tensor<2x?x4xf16>, tensor<2x?x4xf32>
  return %o : tensor<1x16xf32>
}

// -----

func.func @attention_head_major_shape(%q: tensor<4x16xf32>, %k: tensor<4x4x2xf32>, %v: tensor<4x4x2xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{head-major key and value must be [num_kv_heads = 2, keys, head_dim = 4]}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x4x2xf32>, tensor<4x4x2xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_head_major_rows(%q: tensor<4x16xf32>, %k: tensor<2x4x4xf32>, %v: tensor<2x6x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{key has 4 rows but value has 6}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<2x4x4xf32>, tensor<2x6x4xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_zero_heads(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint}}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 0 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

// expected-error @+1 {{stacks no tensors}}
tfm.global_weight @nothing : tensor<4xf32> {stacked = []}

// -----

func.func @kernel_kv_features(%q: tensor<2x16xf32>, %k: tensor<?x6xf32>, %pos: index) -> tensor<2x16xf32> {
  %init = tensor.empty() : tensor<2x16xf32>
  // expected-error @+1 {{key and value must have num_kv_heads * head_dim = 8 features}}
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<2x16xf32>, tensor<?x6xf32>, tensor<?x6xf32>) offset(%pos) outs(%init : tensor<2x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>} -> tensor<2x16xf32>
  return %o : tensor<2x16xf32>
}

// -----

func.func @kernel_init(%q: tensor<2x16xf32>, %k: tensor<?x8xf32>, %pos: index) -> tensor<4x16xf32> {
  %init = tensor.empty() : tensor<4x16xf32>
  // expected-error @+1 {{init has type 'tensor<4x16xf32>' but the query has type 'tensor<2x16xf32>'}}
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<2x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_window_missing(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{a sliding_window mask needs a window}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_window_unused(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{only a sliding_window mask takes a window}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, window = 4 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_window_zero(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{attribute 'window' failed to satisfy constraint}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 0 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_ring_causal(%q: tensor<4x16xf32>, %k: tensor<2x?x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{only a sliding_window mask reads a ring of keys}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>, ring = 8 : i64} : tensor<4x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_ring_token_major(%q: tensor<4x16xf32>, %k: tensor<8x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{a ring of keys must be head-major}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 2 : i64, cache = #tfm.cache_role<self>, ring = 8 : i64} : tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_ring_too_small(%q: tensor<4x16xf32>, %k: tensor<2x?x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{ring of 5 keys cannot hold the window of 3 positions for 4 query rows (needs 6)}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, cache = #tfm.cache_role<self>, ring = 5 : i64} : tensor<4x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_alibi_slopes(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %slopes: tensor<2xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{has 2 ALiBi slopes for 4 heads}}
  %o = tfm.attention %q, %k, %k[%pos] alibi(%slopes : tensor<2xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @relative_bias_table_heads(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<32x2xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{relative_bias must be [num_buckets, num_heads = 4], got 'tensor<32x2xf32>'}}
  %o = tfm.attention %q, %k, %k[%pos] relative_bias(%table : tensor<32x2xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 128 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @relative_bias_without_max_distance(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<32x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{a relative_bias needs a max_distance}}
  %o = tfm.attention %q, %k, %k[%pos] relative_bias(%table : tensor<32x4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @max_distance_without_relative_bias(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{max_distance is only read by a relative_bias}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 128 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @relative_bias_sliding_window(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<32x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{a relative_bias takes a causal or bidirectional mask}}
  %o = tfm.attention %q, %k, %k[%pos] relative_bias(%table : tensor<32x4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 128 : i64, mask = #tfm.mask<sliding_window>, window = 4 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @relative_bias_too_few_buckets(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<3x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{3 bidirectional buckets leave no bucket for exact distances (needs at least 4)}}
  %o = tfm.attention %q, %k, %k[%pos] relative_bias(%table : tensor<3x4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 128 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @relative_bias_max_distance_within_exact(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<32x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{max_distance (16) must exceed the 16 distances that have a bucket each}}
  %o = tfm.attention %q, %k, %k[%pos] relative_bias(%table : tensor<32x4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 16 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_scale(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<32x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{scale must be a positive finite number}}
  %o = tfm.attention %q, %k, %k[%pos] relative_bias(%table : tensor<32x4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 128 : i64, scale = -1.0 : f32, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @attention_softcap(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{softcap must be a positive finite number}}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 4 : i64, softcap = 0.0 : f32, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @soft_cap_cap(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{cap must be a positive finite number}}
  %y = tfm.soft_cap %x {cap = -30.0 : f32} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @relative_bias_and_alibi(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %slopes: tensor<4xf32>, %table: tensor<32x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // expected-error @+1 {{takes ALiBi slopes or a relative_bias, not both}}
  %o = tfm.attention %q, %k, %k[%pos] alibi(%slopes : tensor<4xf32>) relative_bias(%table : tensor<32x4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 128 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

func.func @moe_top_k(%x: tensor<3x8xf32>, %router: tensor<4x8xf32>) {
  // expected-error @+1 {{chooses 5 of 4 experts}}
  %weights, %experts = tfm.moe_route %x, %router {top_k = 5 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<3x8xf32>, tensor<4x8xf32> -> tensor<3x5xf32>, tensor<3x5xi32>
  return
}

// -----

func.func @moe_router(%x: tensor<3x8xf32>, %router: tensor<4x6xf32>) {
  // expected-error @+1 {{router has 6 columns but the input has 8 features}}
  %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<3x8xf32>, tensor<4x6xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
  return
}

// -----

func.func @moe_gate_rows(%x: tensor<3x8xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x2xi32>, %gate: tensor<20x8xf32>, %up: tensor<24x8xf32>, %down: tensor<32x6xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{gate must be [experts * hidden = 24, dim = 8]}}
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<20x8xf32>, tensor<24x8xf32>, tensor<32x6xf32>
  return %y : tensor<3x8xf32>
}

// -----

func.func @moe_down_rows(%x: tensor<3x8xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x2xi32>, %gate: tensor<24x8xf32>, %down: tensor<30x6xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{down must be [experts * dim, hidden] with dim = 8, but has 30 rows}}
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %gate, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<30x6xf32>
  return %y : tensor<3x8xf32>
}

// -----

func.func @moe_choice_shapes(%x: tensor<3x8xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x3xi32>, %gate: tensor<24x8xf32>, %down: tensor<32x6xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{weights and experts must have one shape, [rows, top_k]}}
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %gate, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x3xi32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<32x6xf32>
  return %y : tensor<3x8xf32>
}

// -----

func.func @moe_choice_rows(%x: tensor<3x8xf32>, %weights: tensor<2x2xf32>, %experts: tensor<2x2xi32>, %gate: tensor<24x8xf32>, %down: tensor<32x6xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{chooses experts for 2 rows but the input has 3}}
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %gate, %down : tensor<3x8xf32>, tensor<2x2xf32>, tensor<2x2xi32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<32x6xf32>
  return %y : tensor<3x8xf32>
}

// -----

func.func @moe_no_features(%x: tensor<3x0xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x2xi32>, %gate: tensor<24x0xf32>, %down: tensor<32x6xf32>) -> tensor<3x0xf32> {
  // expected-error @+1 {{input must have a static, positive number of features}}
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %gate, %down : tensor<3x0xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x0xf32>, tensor<24x0xf32>, tensor<32x6xf32>
  return %y : tensor<3x0xf32>
}
