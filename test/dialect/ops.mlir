// RUN: tfmc-opt %s -split-input-file | tfmc-opt -split-input-file | FileCheck %s
// Every op parses, verifies and prints back to something that parses again.

// CHECK-LABEL: tfm.global_weight @layers.0.attn.wq : tensor<8x16xf32>
tfm.global_weight @layers.0.attn.wq : tensor<8x16xf32>
// CHECK-LABEL: func @weight
func.func @weight() -> tensor<8x16xf32> {
  // CHECK: tfm.weight @layers.0.attn.wq : tensor<8x16xf32>
  %w = tfm.weight @layers.0.attn.wq : tensor<8x16xf32>
  return %w : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func @embeddings
func.func @embeddings(%tokens: tensor<4xi32>, %table: tensor<32x16xf32>,
                      %positions: tensor<64x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: %[[X:.*]] = tfm.embedding %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
  %x = tfm.embedding %tokens, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
  // CHECK: tfm.position_embedding %[[X]], %{{.*}}[%{{.*}}] : tensor<4x16xf32>, tensor<64x16xf32>
  %y = tfm.position_embedding %x, %positions[%pos] : tensor<4x16xf32>, tensor<64x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @sinusoidal_position
func.func @sinusoidal_position(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.sinusoidal_position %{{.*}}[%{{.*}}] {base = 1.000000e+04 : f32} : tensor<4x16xf32>
  %y = tfm.sinusoidal_position %x[%pos] {base = 1.0e4 : f32} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<4x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  // CHECK: tfm.rms_norm %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32} : tensor<4x16xf32>, tensor<16xf32>
  %r = tfm.rms_norm %x, %w {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<16xf32>
  // CHECK: tfm.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32} : tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>
  %l = tfm.layer_norm %r, %w, %b {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK: tfm.layer_norm %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<16xf32>
  %h = tfm.layer_norm %l, %w {eps = 1.0e-5 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<16xf32>
  return %h : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @projections
func.func @projections(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>,
                       %head: tensor<32x8xf32>) -> tensor<4x32xf32> {
  // CHECK: tfm.linear %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  %y = tfm.linear %x, %w : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  // CHECK: tfm.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %z = tfm.linear %x, %w, %b : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %s = tfm.add %y, %z : tensor<4x8xf32>
  // CHECK: tfm.lm_head %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %logits = tfm.lm_head %s, %head : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  return %logits : tensor<4x32xf32>
}

// -----

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: tfm.add
  %0 = tfm.add %a, %b : tensor<4x16xf32>
  // CHECK: tfm.mul
  %1 = tfm.mul %0, %b : tensor<4x16xf32>
  // CHECK: tfm.gelu %{{.*}} : tensor<4x16xf32>
  %2 = tfm.gelu %1 : tensor<4x16xf32>
  // CHECK: tfm.silu
  %3 = tfm.silu %2 : tensor<4x16xf32>
  // CHECK: tfm.relu %{{.*}} : tensor<4x16xf32>
  %4 = tfm.relu %3 : tensor<4x16xf32>
  return %4 : tensor<4x16xf32>
}

// -----

// The tanh form is the default and prints as such; erf is spelled out.
// CHECK-LABEL: func @gelu_forms
func.func @gelu_forms(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: tfm.gelu %{{.*}} : tensor<4x16xf32>
  %0 = tfm.gelu %a {approximation = #tfm.gelu<tanh>} : tensor<4x16xf32>
  // CHECK: tfm.gelu %{{.*}} {approximation = #tfm.gelu<erf>} : tensor<4x16xf32>
  %1 = tfm.gelu %0 {approximation = #tfm.gelu<erf>} : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @rope_layouts
func.func @rope_layouts(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.rope %{{.*}}[%{{.*}}] {head_dim = 4 : i64, layout = #tfm.rope_layout<interleaved>, theta = 1.000000e+04 : f32} : tensor<4x16xf32>
  %a = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<interleaved>} : tensor<4x16xf32>
  // CHECK: layout = #tfm.rope_layout<half_split>
  %b = tfm.rope %a[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>} : tensor<4x16xf32>
  return %b : tensor<4x16xf32>
}

// An RMSNorm per head: each group of 4 features by its own RMS.
// CHECK-LABEL: func @rms_norm_groups
func.func @rms_norm_groups(%x: tensor<4x16xf32>, %w: tensor<4xf32>) -> tensor<4x16xf32> {
  // CHECK: tfm.rms_norm %{{.*}}, %{{.*}} {eps = 9.99999997E-7 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<4xf32>
  %y = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<4xf32>
  return %y : tensor<4x16xf32>
}

// A scaled RoPE states its frequencies and the factor on cos and sin.
// CHECK-LABEL: func @rope_scaled
func.func @rope_scaled(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.rope %{{.*}}[%{{.*}}] {attention_factor = 1.100000e+00 : f32, frequencies = array<f32: 1.000000e+00, 2.500000e-02>, head_dim = 4 : i64, layout = #tfm.rope_layout<half_split>, theta = 1.000000e+04 : f32} : tensor<4x16xf32>
  %a = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>, frequencies = array<f32: 1.0, 0.025>, attention_factor = 1.1 : f32} : tensor<4x16xf32>
  return %a : tensor<4x16xf32>
}

// A partial RoPE rotates the first rotary_dim features of each head.
// CHECK-LABEL: func @rope_partial
func.func @rope_partial(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.rope %{{.*}}[%{{.*}}] {head_dim = 8 : i64, layout = #tfm.rope_layout<half_split>, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<4x16xf32>
  %a = tfm.rope %x[%pos] {head_dim = 8 : i64, rotary_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>} : tensor<4x16xf32>
  return %a : tensor<4x16xf32>
}

// A head with a bias (Phi-2, GPT-J).
// CHECK-LABEL: func @lm_head_bias
func.func @lm_head_bias(%x: tensor<4x8xf32>, %w: tensor<32x8xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  // CHECK: tfm.lm_head %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32> -> tensor<4x32xf32>
  %y = tfm.lm_head %x, %w, %b : tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// CHECK-LABEL: func @attention_gqa
func.func @attention_gqa(%q: tensor<4x16xf32>, %k: tensor<8x8xf32>, %v: tensor<8x8xf32>,
                         %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] {cache = #tfm.cache_role<self>, mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

// Head-major keys and values ([kv_heads, keys, head_dim], the KV cache's
// layout), with a dynamic key count.
// CHECK-LABEL: func @attention_head_major
func.func @attention_head_major(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf32>, %v: tensor<2x?x4xf32>,
                                %pos: index) -> tensor<1x16xf32> {
  // CHECK: tfm.attention {{.*}} : tensor<1x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<1x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
  return %o : tensor<1x16xf32>
}

// -----

// Keys and values read from an f16 KV cache.
// CHECK-LABEL: func @attention_f16_cache
func.func @attention_f16_cache(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf16>, %v: tensor<2x?x4xf16>,
                               %pos: index) -> tensor<1x16xf32> {
  // CHECK: tfm.attention {{.*}} : tensor<1x16xf32>, tensor<2x?x4xf16>, tensor<2x?x4xf16>
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<1x16xf32>, tensor<2x?x4xf16>, tensor<2x?x4xf16>
  return %o : tensor<1x16xf32>
}

// -----

// Multi-query attention (one KV head) without a causal mask, caching
// nothing (an encoder's).
// CHECK-LABEL: func @attention_mqa_bidirectional
func.func @attention_mqa_bidirectional(%q: tensor<4x16xf32>, %k: tensor<4x4xf32>,
                                       %v: tensor<4x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.attention {{.*}} {cache = #tfm.cache_role<none>, mask = #tfm.mask<bidirectional>, num_heads = 4 : i64, num_kv_heads = 1 : i64}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>} : tensor<4x16xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  return %o : tensor<4x16xf32>
}

// -----

// Cached keys and values: as many rows as have been written (dynamic).
// CHECK-LABEL: func @attention_cached
func.func @attention_cached(%q: tensor<1x16xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>,
                            %pos: index) -> tensor<1x16xf32> {
  // CHECK: tfm.attention {{.*}} : tensor<1x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<1x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>
  return %o : tensor<1x16xf32>
}

// -----

// CHECK-LABEL: tfm.global_weight @wqkv : tensor<16x8xf32> {stacked = ["wq", "wk", "wv"]}
tfm.global_weight @wqkv : tensor<16x8xf32> {stacked = ["wq", "wk", "wv"]}

// -----

// A sliding window of 3 positions over cross-attended keys.
// CHECK-LABEL: func @attention_window_cross
func.func @attention_window_cross(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>,
                                  %v: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.attention {{.*}} {cache = #tfm.cache_role<cross>, mask = #tfm.mask<sliding_window>, num_heads = 4 : i64, num_kv_heads = 2 : i64, window = 3 : i64}
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, cache = #tfm.cache_role<cross>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @attention_kernel
func.func @attention_kernel(%q: tensor<2x16xf32>, %k: tensor<2x?x4xf32>, %v: tensor<2x?x4xf32>, %pos: index) -> tensor<2x16xf32> {
  %init = tensor.empty() : tensor<2x16xf32>
  // CHECK: tfm.attention_kernel ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>) offset(%{{.*}}) outs(%{{.*}} : tensor<2x16xf32>) {mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64} -> tensor<2x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<2x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>) offset(%pos) outs(%init : tensor<2x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>} -> tensor<2x16xf32>
  return %o : tensor<2x16xf32>
}

// -----

// A weight the model file stores as Q4_0 blocks, declared (exactly) in f32.
// CHECK-LABEL: tfm.global_weight @quantized_in_file : tensor<8x32xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @quantized_in_file : tensor<8x32xf32> {stored = #tfm.stored<q4_0>}

// -----

// A stack of tensors stored in different types records each one's.
// CHECK-LABEL: tfm.global_weight @wqkv : tensor<24x32xf32> {stacked = ["wq", "wk", "wv"], stored = #tfm.stored<q4_k, q4_k, q6_k>}
tfm.global_weight @wqkv : tensor<24x32xf32> {stacked = ["wq", "wk", "wv"], stored = #tfm.stored<q4_k, q4_k, q6_k>}

// -----

// Weights may be stored in f16 or bf16; projections compute in f32.
// CHECK-LABEL: tfm.global_weight @half : tensor<8x16xf16>
tfm.global_weight @half : tensor<8x16xf16>
// CHECK-LABEL: func.func @sixteen_bit_weights
func.func @sixteen_bit_weights(%x: tensor<4x16xf32>, %b: tensor<8x16xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %h = tfm.weight @half : tensor<8x16xf16>
  // CHECK: tfm.linear %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<8x16xf16> -> tensor<4x8xf32>
  %y = tfm.linear %x, %h : tensor<4x16xf32>, tensor<8x16xf16> -> tensor<4x8xf32>
  // CHECK: tfm.lm_head %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<8x16xbf16> -> tensor<4x8xf32>
  %l = tfm.lm_head %x, %b : tensor<4x16xf32>, tensor<8x16xbf16> -> tensor<4x8xf32>
  return %y, %l : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A sliding window over a rolling KV cache: 11 key slots hold the window of
// 4 positions for 8 query rows.
// CHECK-LABEL: func @attention_ring
func.func @attention_ring(%q: tensor<8x16xf32>, %k: tensor<2x?x4xf32>, %pos: index) -> tensor<8x16xf32> {
  // CHECK: tfm.attention {{.*}} {cache = #tfm.cache_role<self>, mask = #tfm.mask<sliding_window>, num_heads = 4 : i64, num_kv_heads = 2 : i64, ring = 11 : i64, window = 4 : i64}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 4 : i64, cache = #tfm.cache_role<self>, ring = 11 : i64} : tensor<8x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Gemma: embeddings scaled by sqrt(hidden), RMSNorm scaling by (1 + w).
// CHECK-LABEL: func @gemma_scales
func.func @gemma_scales(%tokens: tensor<4xi32>, %table: tensor<16x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: tfm.embedding %{{.*}}, %{{.*}} {scale = 2.828400e+00 : f32} : tensor<4xi32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %x = tfm.embedding %tokens, %table {scale = 2.8284 : f32} : tensor<4xi32>, tensor<16x8xf32> -> tensor<4x8xf32>
  // CHECK: tfm.rms_norm %{{.*}}, %{{.*}} {eps = 9.99999997E-7 : f32, unit_offset} : tensor<4x8xf32>, tensor<8xf32>
  %y = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, unit_offset} : tensor<4x8xf32>, tensor<8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// ALiBi: one slope per head.
// CHECK-LABEL: func @attention_alibi
func.func @attention_alibi(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %slopes: tensor<4xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] alibi(%{{.*}} : tensor<4xf32>) {cache = #tfm.cache_role<self>, mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 4 : i64}
  %o = tfm.attention %q, %k, %k[%pos] alibi(%slopes : tensor<4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  %init = tensor.empty() : tensor<4x16xf32>
  // CHECK: tfm.attention_kernel ins({{.*}}) offset(%{{.*}}) alibi(%{{.*}} : tensor<4xf32>) outs(
  %r = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) offset(%pos) alibi(%slopes : tensor<4xf32>) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>} -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// T5's relative position bias: a [buckets, heads] table, its max_distance,
// and no 1/sqrt(head_dim) scaling.
// CHECK-LABEL: func @attention_relative_bias
func.func @attention_relative_bias(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<32x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] relative_bias(%{{.*}} : tensor<32x4xf32>) {cache = #tfm.cache_role<none>, mask = #tfm.mask<bidirectional>, max_distance = 128 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, scale = 1.000000e+00 : f32}
  %o = tfm.attention %q, %k, %k[%pos] relative_bias(%table : tensor<32x4xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 128 : i64, scale = 1.0 : f32, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  %init = tensor.empty() : tensor<4x16xf32>
  // CHECK: tfm.attention_kernel ins({{.*}}) offset(%{{.*}}) relative_bias(%{{.*}} : tensor<32x4xf32>) outs({{.*}}) {mask = #tfm.mask<causal>, max_distance = 64 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, scale = 1.000000e+00 : f32}
  %r = tfm.attention_kernel ins(%o, %k, %k : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) offset(%pos) relative_bias(%table : tensor<32x4xf32>) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 64 : i64, scale = 1.0 : f32, mask = #tfm.mask<causal>} -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Gemma 2's soft-capped attention scores and vocabulary logits.
// CHECK-LABEL: func @soft_capping
func.func @soft_capping(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tfm.attention {{.*}} {cache = #tfm.cache_role<self>, mask = #tfm.mask<sliding_window>, num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 5.000000e+01 : f32, window = 3 : i64}
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 50.0 : f32, mask = #tfm.mask<sliding_window>, window = 3 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  %init = tensor.empty() : tensor<4x16xf32>
  // CHECK: tfm.attention_kernel {{.*}} {mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 5.000000e+01 : f32}
  %r = tfm.attention_kernel ins(%o, %k, %k : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 50.0 : f32, mask = #tfm.mask<causal>} -> tensor<4x16xf32>
  // CHECK: tfm.soft_cap %{{.*}} {cap = 3.000000e+01 : f32} : tensor<4x16xf32>
  %c = tfm.soft_cap %r {cap = 30.0 : f32} : tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// The routing's results are [rows, top_k]: weights (f32), experts (i32).
// CHECK-LABEL: func @moe_route
func.func @moe_route(%x: tensor<3x8xf32>, %router: tensor<4x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  // CHECK: %weights, %experts = tfm.moe_route %{{.*}}, %{{.*}} {routing = #tfm.routing<softmax_top_k>, top_k = 2 : i64} : tensor<3x8xf32>, tensor<4x8xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
  %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<softmax_top_k>} : tensor<3x8xf32>, tensor<4x8xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
  return %weights, %experts : tensor<3x2xf32>, tensor<3x2xi32>
}

// -----

// CHECK-LABEL: func @moe_experts
func.func @moe_experts(%x: tensor<3x8xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x2xi32>, %gate: tensor<24x8xf32>, %down: tensor<32x6xf32>) -> tensor<3x8xf32> {
  // CHECK: tfm.moe_experts %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<32x6xf32>
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %gate, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<32x6xf32>
  return %y : tensor<3x8xf32>
}
