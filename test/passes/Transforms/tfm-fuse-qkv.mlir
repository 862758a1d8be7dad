// RUN: tfmc-opt %s -tfm-fuse-qkv -split-input-file | FileCheck %s

// Q, K and V of one input: one linear over weights stacked at compile time,
// each projection a column slice. The original declarations go away.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @layers.0.attn.wqkv : tensor<16x8xf32> {stacked = ["layers.0.attn.wq", "layers.0.attn.wk", "layers.0.attn.wv"]}
// CHECK-NOT: tfm.global_weight @layers.0.attn.wq :
tfm.global_weight @layers.0.attn.wq : tensor<8x8xf32>
tfm.global_weight @layers.0.attn.wk : tensor<4x8xf32>
tfm.global_weight @layers.0.attn.wv : tensor<4x8xf32>
// CHECK-LABEL: func.func @gqa
func.func @gqa(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  // CHECK: %[[W:.*]] = tfm.weight @layers.0.attn.wqkv
  // CHECK: %[[QKV:.*]] = tfm.linear %{{.*}}, %[[W]] : tensor<2x8xf32>, tensor<16x8xf32> -> tensor<2x16xf32>
  // CHECK: %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0] [2, 8] [1, 1]
  // CHECK: %[[K:.*]] = tensor.extract_slice %[[QKV]][0, 8] [2, 4] [1, 1]
  // CHECK: %[[V:.*]] = tensor.extract_slice %[[QKV]][0, 12] [2, 4] [1, 1]
  // CHECK: return %[[Q]], %[[K]], %[[V]]
  %wq = tfm.weight @layers.0.attn.wq : tensor<8x8xf32>
  %wk = tfm.weight @layers.0.attn.wk : tensor<4x8xf32>
  %wv = tfm.weight @layers.0.attn.wv : tensor<4x8xf32>
  %q = tfm.linear %x, %wq : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
  %k = tfm.linear %x, %wk : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  return %q, %k, %v : tensor<2x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
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
func.func @biased(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  // CHECK: tfm.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<12x4xf32>, tensor<12xf32> -> tensor<2x12xf32>
  %wq = tfm.weight @h.wq : tensor<4x4xf32>
  %wk = tfm.weight @h.wk : tensor<4x4xf32>
  %wv = tfm.weight @h.wv : tensor<4x4xf32>
  %bq = tfm.weight @h.bq : tensor<4xf32>
  %bk = tfm.weight @h.bk : tensor<4xf32>
  %bv = tfm.weight @h.bv : tensor<4xf32>
  %q = tfm.linear %x, %wq, %bq : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %k = tfm.linear %x, %wk, %bk : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv, %bv : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %q, %k, %v : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Only some linears have a bias: left alone.
tfm.global_weight @m.wq : tensor<4x4xf32>
tfm.global_weight @m.wk : tensor<4x4xf32>
tfm.global_weight @m.wv : tensor<4x4xf32>
tfm.global_weight @m.bq : tensor<4xf32>
// CHECK-LABEL: func.func @mixed_bias
func.func @mixed_bias(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  // CHECK-COUNT-3: tfm.linear
  // CHECK-NOT: extract_slice
  %wq = tfm.weight @m.wq : tensor<4x4xf32>
  %wk = tfm.weight @m.wk : tensor<4x4xf32>
  %wv = tfm.weight @m.wv : tensor<4x4xf32>
  %bq = tfm.weight @m.bq : tensor<4xf32>
  %q = tfm.linear %x, %wq, %bq : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %k = tfm.linear %x, %wk : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return %q, %k, %v : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A stack holds one element type: Q in bf16 with K and V in f32 stay apart.
tfm.global_weight @t.wq : tensor<4x4xbf16>
tfm.global_weight @t.wk : tensor<4x4xf32>
tfm.global_weight @t.wv : tensor<4x4xf32>
// CHECK-LABEL: func.func @mixed_element_types
func.func @mixed_element_types(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  // CHECK-COUNT-3: tfm.linear
  // CHECK-NOT: extract_slice
  %wq = tfm.weight @t.wq : tensor<4x4xbf16>
  %wk = tfm.weight @t.wk : tensor<4x4xf32>
  %wv = tfm.weight @t.wv : tensor<4x4xf32>
  %q = tfm.linear %x, %wq : tensor<2x4xf32>, tensor<4x4xbf16> -> tensor<2x4xf32>
  %k = tfm.linear %x, %wk : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %v = tfm.linear %x, %wv : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return %q, %k, %v : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// The stack keeps the file's type when Q, K and V share it (a Q4_0 file);
// a Q4_K_M file's Q4_K Q and K with a Q6_K V stack as "kquant" (the layout
// the kernels read every k-quant in); a k-quant with a Q8_0 V makes a stack
// of mixed types, which is only f32.
// CHECK-LABEL: module
// CHECK-DAG: tfm.global_weight @same.wqkv : tensor<12x32xf32> {stacked = ["same.wq", "same.wk", "same.wv"], stored = "q4_0"}
// CHECK-DAG: tfm.global_weight @mixed.wqkv : tensor<12x32xf32> {stacked = ["mixed.wq", "mixed.wk", "mixed.wv"], stored = "kquant"}
// CHECK-DAG: tfm.global_weight @other.wqkv : tensor<12x32xf32> {stacked = ["other.wq", "other.wk", "other.wv"]}
tfm.global_weight @same.wq : tensor<4x32xf32> {stored = "q4_0"}
tfm.global_weight @same.wk : tensor<4x32xf32> {stored = "q4_0"}
tfm.global_weight @same.wv : tensor<4x32xf32> {stored = "q4_0"}
tfm.global_weight @mixed.wq : tensor<4x32xf32> {stored = "q4_k"}
tfm.global_weight @mixed.wk : tensor<4x32xf32> {stored = "q4_k"}
tfm.global_weight @mixed.wv : tensor<4x32xf32> {stored = "q6_k"}
tfm.global_weight @other.wq : tensor<4x32xf32> {stored = "q4_k"}
tfm.global_weight @other.wk : tensor<4x32xf32> {stored = "q4_k"}
tfm.global_weight @other.wv : tensor<4x32xf32> {stored = "q8_0"}
// CHECK-LABEL: func.func @stored_types
func.func @stored_types(%x: tensor<2x32xf32>, %y: tensor<2x32xf32>, %z: tensor<2x32xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
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
  return %q, %k, %v, %q2, %k2, %v2, %q3, %k3, %v3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
