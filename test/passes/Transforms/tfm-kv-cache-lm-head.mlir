// RUN: tfmc-opt %s -split-input-file -tfm-kv-cache=prefill-chunk=4 | FileCheck %s

// When the logits come from tfm.lm_head, prefill projects only the hidden
// row of its last real token onto the vocabulary; decode projects its one
// row as before.

module attributes {tfm.model = #tfm.model<context_length = 8, kind = decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x32xf32> {
    %table = tfm.weight @table : tensor<32x16xf32>
    %c0 = arith.constant 0 : index
    %e = tfm.embedding %tokens, %table : tensor<2xi32>, tensor<32x16xf32> -> tensor<2x16xf32>
    %x = tfm.attention %e, %e, %e[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>
    %logits = tfm.lm_head %x, %table : tensor<2x16xf32>, tensor<32x16xf32> -> tensor<2x32xf32>
    return %logits : tensor<2x32xf32>
  }
}

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: (%{{.*}}: tensor<4xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %{{.*}}: index {tfm.entry_arg = #tfm.entry_arg<position>}, %[[COUNT:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<count>}, %{{.*}}: tensor<2x1x4x8x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> (tensor<1x32xf32>, tensor<2x1x4x8x4xf32>)
// CHECK: %[[X:.*]] = tfm.attention {{.*}} : tensor<4x16xf32>, tensor<4x?x4xf32>, tensor<4x?x4xf32>
// CHECK: %[[LAST:.*]] = arith.subi %[[COUNT]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[LAST]], 0] [1, 16] [1, 1] : tensor<4x16xf32> to tensor<1x16xf32>
// CHECK: %[[LOGITS:.*]] = tfm.lm_head %[[ROW]], %{{.*}} : tensor<1x16xf32>, tensor<32x16xf32> -> tensor<1x32xf32>
// CHECK: return %[[LOGITS]]

// CHECK-LABEL: func.func @decode
// CHECK: tfm.lm_head {{.*}} : tensor<1x16xf32>, tensor<32x16xf32> -> tensor<1x32xf32>
// CHECK-NOT: tensor.extract_slice

// -----

// Soft-capped logits (Gemma 2) are still only the last row's: the cap
// follows the one projected row.

module attributes {tfm.model = #tfm.model<context_length = 8, kind = decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x32xf32> {
    %table = tfm.weight @table : tensor<32x16xf32>
    %c0 = arith.constant 0 : index
    %e = tfm.embedding %tokens, %table : tensor<2xi32>, tensor<32x16xf32> -> tensor<2x16xf32>
    %x = tfm.attention %e, %e, %e[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, softcap = 50.0 : f32, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>
    %logits = tfm.lm_head %x, %table : tensor<2x16xf32>, tensor<32x16xf32> -> tensor<2x32xf32>
    %capped = tfm.soft_cap %logits {cap = 30.0 : f32} : tensor<2x32xf32>
    return %capped : tensor<2x32xf32>
  }
}

// CHECK-LABEL: func.func @prefill
// CHECK: %[[X:.*]] = tfm.attention {{.*}}softcap = 5.000000e+01 : f32{{.*}} : tensor<4x16xf32>, tensor<4x?x4xf32>, tensor<4x?x4xf32>
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[X]][%{{.*}}, 0] [1, 16] [1, 1] : tensor<4x16xf32> to tensor<1x16xf32>
// CHECK: %[[LOGITS:.*]] = tfm.lm_head %[[ROW]], %{{.*}} : tensor<1x16xf32>, tensor<32x16xf32> -> tensor<1x32xf32>
// CHECK: %[[CAPPED:.*]] = tfm.soft_cap %[[LOGITS]] {cap = 3.000000e+01 : f32} : tensor<1x32xf32>
// CHECK: return %[[CAPPED]]

// CHECK-LABEL: func.func @decode
// CHECK: tfm.attention {{.*}}softcap = 5.000000e+01 : f32
// CHECK: tfm.soft_cap {{.*}} : tensor<1x32xf32>
