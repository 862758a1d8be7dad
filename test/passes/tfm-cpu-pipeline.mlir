// RUN: tfmc-opt %s -tfm-cpu-pipeline="prefill-chunk=2" | FileCheck %s

// The whole CPU pipeline produces the bare-pointer entry ABI of
// runtime/ModelABI.h: (weights, tokens, pos, cache, logits) -> void.

module attributes {tfm.context_length = 8 : i64} {
  tfm.global_weight @table : tensor<16x8xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %t = tfm.weight @table : tensor<16x8xf32>
    %x = tfm.embedding %tokens, %t : tensor<4xi32>, tensor<16x8xf32> -> tensor<4x8xf32>
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    %l = tfm.lm_head %a, %t : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
    return %l : tensor<4x16xf32>
  }
}

// CHECK-LABEL: llvm.func @prefill
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK-LABEL: llvm.func @decode
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK-NOT: tfm.
// CHECK-NOT: linalg.
