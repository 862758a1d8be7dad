// RUN: not tfmc-opt %s -tfm-kv-cache="kv-cache=bf16" 2>&1 | FileCheck %s

// Only f32 and f16 caches exist: the option's values are an enum, so
// another name is refused where the option is parsed.
// CHECK: Cannot find option named 'bf16'!
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
