// RUN: tfmc-opt %s -tfm-cpu-fuse-attention -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-fuse-attention=block-keys=32 -split-input-file | FileCheck %s --check-prefix=BLOCK32

// Every attention becomes one flash attention with the same operands and
// attributes, walking keys in blocks of 16 (the default).
// CHECK-LABEL: func.func @causal_gqa
// CHECK: tfm.flash_attention %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] {block_keys = 16 : i64, causal, num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<2x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>
// CHECK-NOT: tfm.attention
// BLOCK32-LABEL: func.func @causal_gqa
// BLOCK32: tfm.flash_attention {{.*}}block_keys = 32 : i64
func.func @causal_gqa(%q: tensor<2x16xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>, %pos: index) -> tensor<2x16xf32> {
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<2x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>
  return %o : tensor<2x16xf32>
}

// -----

// CHECK-LABEL: func.func @bidirectional
// CHECK: tfm.flash_attention {{.*}} {block_keys = 16 : i64, num_heads = 2 : i64, num_kv_heads = 2 : i64}
func.func @bidirectional(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x8xf32> {
  %o = tfm.attention %q, %k, %k[%pos] {num_heads = 2 : i64, num_kv_heads = 2 : i64} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}
