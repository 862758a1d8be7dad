// RUN: tfmc-opt %s -tfm-fuse-qkv -split-input-file | FileCheck %s

// The query, key and value projections of one attention, over one input:
// one linear over weights stacked at compile time, each projection a column
// slice. The original declarations go away.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @layers.0.attn.wqkv : tensor<16x8xf32> {stacked = ["layers.0.attn.wq", "layers.0.attn.wk", "layers.0.attn.wv"]}
// CHECK-NOT: tfm.global_weight @layers.0.attn.wq :
tfm.global_weight @layers.0.attn.wq : tensor<8x8xf32>
tfm.global_weight @layers.0.attn.wk : tensor<4x8xf32>
tfm.global_weight @layers.0.attn.wv : tensor<4x8xf32>
// CHECK-LABEL: func.func @gqa
func.func @gqa(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[W:.*]] = tfm.weight @layers.0.attn.wqkv
  // CHECK: %[[QKV:.*]] = tfm.linear %{{.*}}, %[[W]] : tensor<2x8xf32>, tensor<16x8xf32> -> tensor<2x16xf32>
  // CHECK: %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0] [2, 8] [1, 1]
  // CHECK: %[[K:.*]] = tensor.extract_slice %[[QKV]][0, 8] [2, 4] [1, 1]
  // CHECK: %[[V:.*]] = tensor.extract_slice %[[QKV]][0, 12] [2, 4] [1, 1]
  // CHECK: tfm.attention %[[Q]], %[[K]], %[[V]]
  %c0 = arith.constant 0 : index
  %wq = tfm.weight @layers.0.attn.wq : tensor<8x8xf32>
  %wk = tfm.weight @layers.0.attn.wk : tensor<4x8xf32>
  %wv = tfm.weight @layers.0.attn.wv : tensor<4x8xf32>
  %q = tfm.linear %x, %wq : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
  %k = tfm.linear %x, %wk : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %a = tfm.attention %q, %k, %v[%c0] {num_heads = 2 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %a : tensor<2x8xf32>
}

// -----

// After tfm-kv-cache the keys and values reach the attention through the
// cache (written, then read back) and the query through RoPE: they are
// still the attention's projections.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @c.wqkv : tensor<16x8xf32> {stacked = ["c.wq", "c.wk", "c.wv"]}
tfm.global_weight @c.wq : tensor<8x8xf32>
tfm.global_weight @c.wk : tensor<4x8xf32>
tfm.global_weight @c.wv : tensor<4x8xf32>
// CHECK-LABEL: func.func @cached
func.func @cached(%x: tensor<1x8xf32>, %pos: index, %cache: tensor<2x1x1x4x4xf32>) -> (tensor<1x8xf32>, tensor<2x1x1x4x4xf32>) {
  // CHECK: %[[W:.*]] = tfm.weight @c.wqkv
  // CHECK: %[[QKV:.*]] = tfm.linear %{{.*}}, %[[W]] : tensor<1x8xf32>, tensor<16x8xf32> -> tensor<1x16xf32>
  // CHECK: %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0] [1, 8] [1, 1]
  // CHECK: %[[K:.*]] = tensor.extract_slice %[[QKV]][0, 8] [1, 4] [1, 1]
  // CHECK: %[[V:.*]] = tensor.extract_slice %[[QKV]][0, 12] [1, 4] [1, 1]
  // CHECK: tfm.rope %[[Q]]
  // CHECK: tensor.expand_shape %[[K]]
  // CHECK: tensor.expand_shape %[[V]]
  %c1 = arith.constant 1 : index
  %wq = tfm.weight @c.wq : tensor<8x8xf32>
  %wk = tfm.weight @c.wk : tensor<4x8xf32>
  %wv = tfm.weight @c.wv : tensor<4x8xf32>
  %q = tfm.linear %x, %wq : tensor<1x8xf32>, tensor<8x8xf32> -> tensor<1x8xf32>
  %k = tfm.linear %x, %wk : tensor<1x8xf32>, tensor<4x8xf32> -> tensor<1x4xf32>
  %v = tfm.linear %x, %wv : tensor<1x8xf32>, tensor<4x8xf32> -> tensor<1x4xf32>
  %qr = tfm.rope %q[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<interleaved>} : tensor<1x8xf32>
  %k3 = tensor.expand_shape %k [[0, 1], [2]] output_shape [1, 1, 4] : tensor<1x4xf32> into tensor<1x1x4xf32>
  %v3 = tensor.expand_shape %v [[0, 1], [2]] output_shape [1, 1, 4] : tensor<1x4xf32> into tensor<1x1x4xf32>
  %written = tensor.insert_slice %k3 into %cache[0, 0, 0, %pos, 0] [1, 1, 1, 1, 4] [1, 1, 1, 1, 1] : tensor<1x1x4xf32> into tensor<2x1x1x4x4xf32>
  %both = tensor.insert_slice %v3 into %written[1, 0, 0, %pos, 0] [1, 1, 1, 1, 4] [1, 1, 1, 1, 1] : tensor<1x1x4xf32> into tensor<2x1x1x4x4xf32>
  %visible = arith.addi %pos, %c1 : index
  %keys = tensor.extract_slice %both[0, 0, 0, 0, 0] [1, 1, 1, %visible, 4] [1, 1, 1, 1, 1] : tensor<2x1x1x4x4xf32> to tensor<1x?x4xf32>
  %values = tensor.extract_slice %both[1, 0, 0, 0, 0] [1, 1, 1, %visible, 4] [1, 1, 1, 1, 1] : tensor<2x1x1x4x4xf32> to tensor<1x?x4xf32>
  %a = tfm.attention %qr, %keys, %values[%pos] {num_heads = 2 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<1x8xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>
  return %a, %both : tensor<1x8xf32>, tensor<2x1x1x4x4xf32>
}

// -----

// Three linears of one input that feed no attention are not Q, K and V
// (here a gated MLP with a third branch): they stay apart.
// CHECK-LABEL: module
// CHECK-NOT: wqkv
tfm.global_weight @g.w1 : tensor<4x4xf32>
tfm.global_weight @g.w2 : tensor<4x4xf32>
tfm.global_weight @g.w3 : tensor<4x4xf32>
// CHECK-LABEL: func.func @three_branch_mlp
func.func @three_branch_mlp(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK-COUNT-3: tfm.linear
  // CHECK-NOT: extract_slice
  %w1 = tfm.weight @g.w1 : tensor<4x4xf32>
  %w2 = tfm.weight @g.w2 : tensor<4x4xf32>
  %w3 = tfm.weight @g.w3 : tensor<4x4xf32>
  %a = tfm.linear %x, %w1 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %b = tfm.linear %x, %w2 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %c = tfm.linear %x, %w3 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %gate = tfm.silu %a : tensor<2x4xf32>
  %ab = tfm.mul %gate, %b : tensor<2x4xf32>
  %abc = tfm.mul %ab, %c : tensor<2x4xf32>
  return %abc : tensor<2x4xf32>
}

// -----

// Attention and MLP read one normalised input (a parallel block): Q, K and
// V are stacked, the MLP's projection stays apart.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @p.wqkv : tensor<12x4xf32> {stacked = ["p.wq", "p.wk", "p.wv"]}
// CHECK: tfm.global_weight @p.w_up : tensor<8x4xf32>
tfm.global_weight @p.wq : tensor<4x4xf32>
tfm.global_weight @p.wk : tensor<4x4xf32>
tfm.global_weight @p.wv : tensor<4x4xf32>
tfm.global_weight @p.w_up : tensor<8x4xf32>
// CHECK-LABEL: func.func @parallel_block
func.func @parallel_block(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x8xf32>) {
  // CHECK: tfm.linear %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<12x4xf32> -> tensor<2x12xf32>
  // CHECK: tfm.linear %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<8x4xf32> -> tensor<2x8xf32>
  %c0 = arith.constant 0 : index
  %wq = tfm.weight @p.wq : tensor<4x4xf32>
  %wk = tfm.weight @p.wk : tensor<4x4xf32>
  %wv = tfm.weight @p.wv : tensor<4x4xf32>
  %wu = tfm.weight @p.w_up : tensor<8x4xf32>
  %q = tfm.linear %x, %wq : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %k = tfm.linear %x, %wk : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %up = tfm.linear %x, %wu : tensor<2x4xf32>, tensor<8x4xf32> -> tensor<2x8xf32>
  %a = tfm.attention %q, %k, %v[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %a, %up : tensor<2x4xf32>, tensor<2x8xf32>
}

// -----

// A cross-attention's keys and values come from another sequence: nothing
// to stack with its query.
// CHECK-LABEL: module
// CHECK-NOT: wqkv
tfm.global_weight @x.wq : tensor<4x4xf32>
tfm.global_weight @x.wk : tensor<4x4xf32>
tfm.global_weight @x.wv : tensor<4x4xf32>
// CHECK-LABEL: func.func @cross
func.func @cross(%y: tensor<2x4xf32>, %memory: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // CHECK-COUNT-3: tfm.linear
  // CHECK-NOT: extract_slice
  %c0 = arith.constant 0 : index
  %wq = tfm.weight @x.wq : tensor<4x4xf32>
  %wk = tfm.weight @x.wk : tensor<4x4xf32>
  %wv = tfm.weight @x.wv : tensor<4x4xf32>
  %q = tfm.linear %y, %wq : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %k = tfm.linear %memory, %wk : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %v = tfm.linear %memory, %wv : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %a = tfm.attention %q, %k, %v[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<cross>} : tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// Biases (GPT-2) are stacked the same way.
// CHECK-LABEL: module
// CHECK-DAG: tfm.global_weight @h.wqkv : tensor<12x4xf32> {stacked = ["h.wq", "h.wk", "h.wv"]}
// CHECK-DAG: tfm.global_weight @h.bqkv : tensor<12xf32> {stacked = ["h.bq", "h.bk", "h.bv"]}
tfm.global_weight @h.wq : tensor<4x4xf32>
tfm.global_weight @h.wk : tensor<4x4xf32>
tfm.global_weight @h.wv : tensor<4x4xf32>
tfm.global_weight @h.bq : tensor<4xf32>
tfm.global_weight @h.bk : tensor<4xf32>
tfm.global_weight @h.bv : tensor<4xf32>
// CHECK-LABEL: func.func @biased
func.func @biased(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: tfm.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<12x4xf32>, tensor<12xf32> -> tensor<2x12xf32>
  %c0 = arith.constant 0 : index
  %wq = tfm.weight @h.wq : tensor<4x4xf32>
  %wk = tfm.weight @h.wk : tensor<4x4xf32>
  %wv = tfm.weight @h.wv : tensor<4x4xf32>
  %bq = tfm.weight @h.bq : tensor<4xf32>
  %bk = tfm.weight @h.bk : tensor<4xf32>
  %bv = tfm.weight @h.bv : tensor<4xf32>
  %q = tfm.linear %x, %wq, %bq : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %k = tfm.linear %x, %wk, %bk : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv, %bv : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %a = tfm.attention %q, %k, %v[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// Only some linears have a bias: left alone.
tfm.global_weight @m.wq : tensor<4x4xf32>
tfm.global_weight @m.wk : tensor<4x4xf32>
tfm.global_weight @m.wv : tensor<4x4xf32>
tfm.global_weight @m.bq : tensor<4xf32>
// CHECK-LABEL: func.func @mixed_bias
func.func @mixed_bias(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK-COUNT-3: tfm.linear
  // CHECK-NOT: extract_slice
  %c0 = arith.constant 0 : index
  %wq = tfm.weight @m.wq : tensor<4x4xf32>
  %wk = tfm.weight @m.wk : tensor<4x4xf32>
  %wv = tfm.weight @m.wv : tensor<4x4xf32>
  %bq = tfm.weight @m.bq : tensor<4xf32>
  %q = tfm.linear %x, %wq, %bq : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %k = tfm.linear %x, %wk : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a = tfm.attention %q, %k, %v[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// A stack holds one element type: Q in bf16 with K and V in f32 stay apart.
tfm.global_weight @t.wq : tensor<4x4xbf16>
tfm.global_weight @t.wk : tensor<4x4xf32>
tfm.global_weight @t.wv : tensor<4x4xf32>
// CHECK-LABEL: func.func @mixed_element_types
func.func @mixed_element_types(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK-COUNT-3: tfm.linear
  // CHECK-NOT: extract_slice
  %c0 = arith.constant 0 : index
  %wq = tfm.weight @t.wq : tensor<4x4xbf16>
  %wk = tfm.weight @t.wk : tensor<4x4xf32>
  %wv = tfm.weight @t.wv : tensor<4x4xf32>
  %q = tfm.linear %x, %wq : tensor<2x4xf32>, tensor<4x4xbf16> -> tensor<2x4xf32>
  %k = tfm.linear %x, %wk : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a = tfm.attention %q, %k, %v[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// The stack keeps the file's type when Q, K and V share it (a Q4_0 file),
// else each tensor's: a Q4_K_M file's Q4_K Q and K with a Q6_K V (which the
// CPU reads as kquant), a k-quant with a Q8_0 V (which it reads as f32:
// tfm-cpu-select-kernel-config.mlir).
// CHECK-LABEL: module
// CHECK-DAG: tfm.global_weight @same.wqkv : tensor<12x32xf32> {stacked = ["same.wq", "same.wk", "same.wv"], stored = #tfm.stored<q4_0>}
// CHECK-DAG: tfm.global_weight @mixed.wqkv : tensor<12x32xf32> {stacked = ["mixed.wq", "mixed.wk", "mixed.wv"], stored = #tfm.stored<q4_k, q4_k, q6_k>}
// CHECK-DAG: tfm.global_weight @other.wqkv : tensor<12x32xf32> {stacked = ["other.wq", "other.wk", "other.wv"], stored = #tfm.stored<q4_k, q4_k, q8_0>}
tfm.global_weight @same.wq : tensor<4x32xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @same.wk : tensor<4x32xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @same.wv : tensor<4x32xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @mixed.wq : tensor<4x32xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @mixed.wk : tensor<4x32xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @mixed.wv : tensor<4x32xf32> {stored = #tfm.stored<q6_k>}
tfm.global_weight @other.wq : tensor<4x32xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @other.wk : tensor<4x32xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @other.wv : tensor<4x32xf32> {stored = #tfm.stored<q8_0>}
// CHECK-LABEL: func.func @stored_types
func.func @stored_types(%x: tensor<2x32xf32>, %y: tensor<2x32xf32>, %z: tensor<2x32xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %sq = tfm.weight @same.wq : tensor<4x32xf32>
  %sk = tfm.weight @same.wk : tensor<4x32xf32>
  %sv = tfm.weight @same.wv : tensor<4x32xf32>
  %mq = tfm.weight @mixed.wq : tensor<4x32xf32>
  %mk = tfm.weight @mixed.wk : tensor<4x32xf32>
  %mv = tfm.weight @mixed.wv : tensor<4x32xf32>
  %q = tfm.linear %x, %sq : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %k = tfm.linear %x, %sk : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %sv : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %q2 = tfm.linear %y, %mq : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %k2 = tfm.linear %y, %mk : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %v2 = tfm.linear %y, %mv : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %oq = tfm.weight @other.wq : tensor<4x32xf32>
  %ok = tfm.weight @other.wk : tensor<4x32xf32>
  %ov = tfm.weight @other.wv : tensor<4x32xf32>
  %q3 = tfm.linear %z, %oq : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %k3 = tfm.linear %z, %ok : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %v3 = tfm.linear %z, %ov : tensor<2x32xf32>, tensor<4x32xf32> -> tensor<2x4xf32>
  %a = tfm.attention %q, %k, %v[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  %a2 = tfm.attention %q2, %k2, %v2[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  %a3 = tfm.attention %q3, %k3, %v3[%c0] {num_heads = 1 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %a, %a2, %a3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
