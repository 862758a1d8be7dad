// RUN: tfmc-opt %s -tfm-kv-cache=prefill-chunk=8 | FileCheck %s

// The full-sequence network becomes prefill (a chunk) and decode (one
// token); every position offset becomes the entry's %pos and each attention
// first writes its keys/values into the cache, then reads the layer's slice.

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  tfm.global_weight @wq : tensor<16x16xf32>
  tfm.global_weight @wk : tensor<8x16xf32>
  // CHECK-NOT: func.func @forward
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

// CHECK-LABEL: func.func @prefill
// The count and the cache are marked for tfm-skip-unread-logits.
// CHECK-SAME: (%[[TOKENS:[a-z0-9]+]]: tensor<8xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %[[POS:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<position>}, %[[COUNT:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<count>}, %[[CACHE:[a-z0-9]+]]: tensor<2x1x2x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> (tensor<1x16xf32>, tensor<2x1x2x16x4xf32>)
// CHECK: %[[X:.*]] = tfm.embedding %[[TOKENS]], %{{.*}} -> tensor<8x16xf32>
// CHECK: %[[K:.*]] = tfm.linear %[[X]], %{{.*}} -> tensor<8x8xf32>
// CHECK: %[[Q:.*]] = tfm.rope %[[X]][%[[POS]]]
// The cache is head-major: the [8, 2 x 4] keys are transposed to [2, 8, 4].
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[K]] {{\[\[}}0], [1, 2]] output_shape [8, 2, 4] : tensor<8x8xf32> into tensor<8x2x4xf32>
// CHECK: %[[HEADS:.*]] = linalg.transpose ins(%[[SPLIT]] : tensor<8x2x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) permutation = [1, 0, 2]
// CHECK: %[[C1:.*]] = tensor.insert_slice %[[HEADS]] into %[[CACHE]][0, 0, 0, %[[POS]], 0] [1, 1, 2, 8, 4]
// CHECK: %[[C2:.*]] = tensor.insert_slice %{{.*}} into %[[C1]][1, 0, 0, %[[POS]], 0] [1, 1, 2, 8, 4]
// Attention reads only the positions written so far: [0, pos + 8).
// CHECK: %[[VISIBLE:.*]] = arith.addi %[[POS]], %{{.*}} : index
// CHECK: %[[KEYS:.*]] = tensor.extract_slice %[[C2]][0, 0, 0, 0, 0] [1, 1, 2, %[[VISIBLE]], 4] {{.*}} to tensor<2x?x4xf32>
// CHECK: %[[VALUES:.*]] = tensor.extract_slice %[[C2]][1, 0, 0, 0, 0] [1, 1, 2, %[[VISIBLE]], 4] {{.*}} to tensor<2x?x4xf32>
// CHECK: %[[OUT:.*]] = tfm.attention %[[Q]], %[[KEYS]], %[[VALUES]][%[[POS]]] {{.*}} : tensor<8x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
// Prefill returns the row of its last real token only.
// CHECK: %[[LAST:.*]] = arith.subi %[[COUNT]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[OUT]][%[[LAST]], 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<1x16xf32>
// CHECK: return %[[ROW]], %[[C2]]

// CHECK-LABEL: func.func @decode
// CHECK-SAME: tensor<1xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %{{.*}}: index {tfm.entry_arg = #tfm.entry_arg<position>}, %{{.*}}: tensor<2x1x2x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> (tensor<1x16xf32>, tensor<2x1x2x16x4xf32>)
// CHECK: tfm.attention {{.*}} : tensor<1x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
