// RUN: tfmc-opt %s -tfm-kv-cache=prefill-chunk=8 | FileCheck %s

// Sinusoidal encodings are of the tokens' absolute positions: in prefill and
// in decode their offset becomes the entry's %pos, as RoPE's does.

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  tfm.global_weight @table : tensor<16x16xf32>
  tfm.global_weight @wk : tensor<8x16xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<16x16xf32>
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %e = tfm.embedding %tokens, %table : tensor<4xi32>, tensor<16x16xf32> -> tensor<4x16xf32>
    %x = tfm.sinusoidal_position %e[%c0] {base = 1.0e4 : f32} : tensor<4x16xf32>
    %k = tfm.linear %x, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %a = tfm.attention %x, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    return %a : tensor<4x16xf32>
  }
}

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: (%[[TOKENS:[a-z0-9]+]]: tensor<8xi32> {{.*}}, %[[POS:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<position>}
// CHECK: %[[E:.*]] = tfm.embedding %[[TOKENS]], %{{.*}} -> tensor<8x16xf32>
// CHECK: tfm.sinusoidal_position %[[E]][%[[POS]]] {base = 1.000000e+04 : f32} : tensor<8x16xf32>

// CHECK-LABEL: func.func @decode
// CHECK-SAME: (%[[TOKEN:[a-z0-9]+]]: tensor<1xi32> {{.*}}, %[[DPOS:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<position>}
// CHECK: %[[DE:.*]] = tfm.embedding %[[TOKEN]], %{{.*}} -> tensor<1x16xf32>
// CHECK: tfm.sinusoidal_position %[[DE]][%[[DPOS]]] {base = 1.000000e+04 : f32} : tensor<1x16xf32>
