// RUN: tfmc-opt %s -tfm-kv-cache | FileCheck %s
// RUN: tfmc-opt %s -tfm-kv-cache=context-length=8 | FileCheck %s --check-prefix=SHORT
// RUN: tfmc-opt %s -tfm-kv-cache=encode-min-rows=2 | FileCheck %s --check-prefix=BUCKETS
// RUN: not tfmc-opt %s -tfm-kv-cache=encode-min-rows=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// An encoder (#tfm.model's kind; bidirectional attention with nothing to
// cache) gets one `encode` entry over the whole sequence and no cache;
// padding rows (from %length on) are kept out of every attention's keys
// and values. #tfm.model keeps its kind and names no network any more.

module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  tfm.global_weight @wk : tensor<8x16xf32>
  // CHECK-NOT: func.func @forward
  func.func @forward(%tokens: tensor<4xi32>) -> (tensor<4x16xf32>, tensor<4x32xf32>) {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %x = tfm.embedding %tokens, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %k = tfm.linear %x, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %a = tfm.attention %x, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    %logits = tfm.linear %a, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %a, %logits : tensor<4x16xf32>, tensor<4x32xf32>
  }
}

// CHECK: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<encode = @encode, context_length = 16>
// CHECK-SAME: tfm.model = #tfm.model<context_length = 16, kind = encoder>
// CHECK-NOT: func.func @prefill
// CHECK-NOT: func.func @decode
// CHECK-LABEL: func.func @encode
// CHECK-SAME: (%[[TOKENS:[a-z0-9]+]]: tensor<16xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %[[LENGTH:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<length>}) -> (tensor<16x16xf32>, tensor<16x32xf32>)
// CHECK: %[[X:.*]] = tfm.embedding %[[TOKENS]], %{{.*}} -> tensor<16x16xf32>
// CHECK: %[[K:.*]] = tfm.linear %[[X]], %{{.*}} -> tensor<16x8xf32>
// Keys and values: head-major, rows [0, length) only.
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[K]] {{\[\[}}0], [1, 2]] output_shape [16, 2, 4] : tensor<16x8xf32> into tensor<16x2x4xf32>
// CHECK: %[[HEADS:.*]] = linalg.transpose ins(%[[SPLIT]] : tensor<16x2x4xf32>) outs(%{{.*}} : tensor<2x16x4xf32>) permutation = [1, 0, 2]
// CHECK: %[[KEYS:.*]] = tensor.extract_slice %[[HEADS]][0, 0, 0] [2, %[[LENGTH]], 4] [1, 1, 1] : tensor<2x16x4xf32> to tensor<2x?x4xf32>
// CHECK: %[[OUT:.*]] = tfm.attention %[[X]], %[[KEYS]], %{{.*}}[%{{.*}}] {cache = #tfm.cache_role<none>, mask = #tfm.mask<bidirectional>, num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<16x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
// Every row of every result is returned.
// CHECK: %[[LOGITS:.*]] = tfm.linear %[[OUT]], %{{.*}} -> tensor<16x32xf32>
// CHECK: return %[[OUT]], %[[LOGITS]] : tensor<16x16xf32>, tensor<16x32xf32>

// The sequence is the context length the option gives.
// SHORT: tfm.entries = #tfm.entries<encode = @encode, context_length = 8>
// SHORT: func.func @encode(%{{.*}}: tensor<8xi32> {{.*}}) -> (tensor<8x16xf32>, tensor<8x32xf32>)

// Encode buckets: copies of encode over 2 and 8 rows (each four times the
// last, below the context of 16), shortest first; each keeps padding out
// of its attention as encode does.
// BUCKETS: tfm.entries = #tfm.entries<encode = @encode, context_length = 16, encode_buckets = [#tfm.encode_bucket<rows = 2, entry = @encode_2>, #tfm.encode_bucket<rows = 8, entry = @encode_8>]>
// BUCKETS-LABEL: func.func @encode(
// BUCKETS-SAME: tensor<16xi32>
// BUCKETS-LABEL: func.func @encode_2(
// BUCKETS-SAME: %{{[a-z0-9]+}}: tensor<2xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %[[LENGTH2:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<length>}) -> (tensor<2x16xf32>, tensor<2x32xf32>)
// BUCKETS: tensor.extract_slice %{{.*}}[0, 0, 0] [2, %[[LENGTH2]], 4] [1, 1, 1] : tensor<2x2x4xf32> to tensor<2x?x4xf32>
// BUCKETS: return %{{.*}}, %{{.*}} : tensor<2x16xf32>, tensor<2x32xf32>
// BUCKETS-LABEL: func.func @encode_8(
// BUCKETS-SAME: tensor<8xi32>
// BUCKETS-SAME: -> (tensor<8x16xf32>, tensor<8x32xf32>)

// NEGATIVE: error: tfm-kv-cache: encode-min-rows must be >= 0, got -1
