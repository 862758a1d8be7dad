// RUN: tfmc-opt %s -tfm-kv-cache="prefill-chunk=64 context-length=4" | FileCheck %s

// context-length overrides the model's context_length, and the prefill
// chunk is capped at the context length.

// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<prefill = @prefill, decode = @decode, prefill_chunk = 4, context_length = 4>
// CHECK-LABEL: func.func @prefill
// CHECK-SAME: tensor<4xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %{{.*}}: index {tfm.entry_arg = #tfm.entry_arg<position>}, %{{.*}}: index {tfm.entry_arg = #tfm.entry_arg<count>}, %{{.*}}: tensor<2x1x2x4x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  tfm.global_weight @wq : tensor<16x16xf32>
  tfm.global_weight @wk : tensor<8x16xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %wq = tfm.weight @wq : tensor<16x16xf32>
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %x = tfm.embedding %tokens, %wq : tensor<4xi32>, tensor<16x16xf32> -> tensor<4x16xf32>
    %k = tfm.linear %x, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %q = tfm.rope %x[%c0] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<interleaved>} : tensor<4x16xf32>
    %a = tfm.attention %q, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    return %a : tensor<4x16xf32>
  }
}

