// RUN: tfmc-opt %s -tfm-kv-cache="cache-type=bf16" -verify-diagnostics

// Only f32 and f16 caches exist.
// expected-error @+1 {{tfm-kv-cache: cache-type must be f32 or f16, not 'bf16'}}
module attributes {tfm.model = #tfm.model<context_length = 16, network = @forward>} {
  tfm.global_weight @wk : tensor<8x16xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %x = tfm.embedding %tokens, %wk : tensor<4xi32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %k = tfm.linear %x, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %a = tfm.attention %x, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    return %a : tensor<4x16xf32>
  }
}
