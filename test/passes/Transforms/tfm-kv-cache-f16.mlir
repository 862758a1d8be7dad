// RUN: tfmc-opt %s -tfm-kv-cache="prefill-chunk=4 kv-cache=f16" | FileCheck %s

// kv-cache=f16: the cache is f16, each step's keys and values are rounded
// to f16 after the head-major transpose and before they are written, and
// attention reads f16 slices of it.

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: tensor<2x1x2x16x4xf16> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> (tensor<1x16xf32>, tensor<2x1x2x16x4xf16>)
// CHECK: %[[HEADS:.*]] = linalg.transpose ins(%{{.*}} : tensor<4x2x4xf32>) outs(%{{.*}} : tensor<2x4x4xf32>) permutation = [1, 0, 2]
// CHECK: %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[HEADS]] : tensor<2x4x4xf32>) outs(%{{.*}} : tensor<2x4x4xf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[C1:.*]] = tensor.insert_slice %[[ROUNDED]] into %[[CACHE]][0, 0, 0, %{{.*}}, 0] [1, 1, 2, 4, 4]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 1, 2, %{{.*}}, 4] {{.*}} to tensor<2x?x4xf16>
// CHECK: tfm.attention {{.*}} : tensor<4x16xf32>, tensor<2x?x4xf16>, tensor<2x?x4xf16>
// CHECK-LABEL: func.func @decode
// CHECK-SAME: tensor<2x1x2x16x4xf16> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> (tensor<1x16xf32>, tensor<2x1x2x16x4xf16>)
module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  tfm.global_weight @wq : tensor<16x16xf32>
  tfm.global_weight @wk : tensor<8x16xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %wq = tfm.weight @wq : tensor<16x16xf32>
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %x = tfm.embedding %tokens, %wq : tensor<4xi32>, tensor<16x16xf32> -> tensor<4x16xf32>
    %k = tfm.linear %x, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %a = tfm.attention %x, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    return %a : tensor<4x16xf32>
  }
}
