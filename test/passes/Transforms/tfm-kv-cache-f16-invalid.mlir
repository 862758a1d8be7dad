// RUN: not tfmc-opt %s -tfm-kv-cache="kv-cache=bf16" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: tfmc-opt %s -tfm-kv-cache="kv-cache=f16" -split-input-file -verify-diagnostics

// Only f32 and f16 caches exist: the option's values are an enum, so
// another name is refused where the option is parsed.
// VALUE: Cannot find option named 'bf16'!

// An encoder has no KV cache to store in f16.
// expected-error @+1 {{tfm-kv-cache: kv-cache=f16 asks for a KV cache, but an encoder (#tfm.model's kind) has none}}
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %x = tfm.embedding %tokens, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    return %a : tensor<4x16xf32>
  }
}
