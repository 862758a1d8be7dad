// RUN: tfmc-opt %s -tfm-kv-cache=prefill-chunk=8 | FileCheck %s
// RUN: tfmc-opt %s '-tfm-kv-cache=prefill-chunk=8 encode-min-rows=4' | FileCheck %s --check-prefix=BUCKETS

// An encoder-decoder's @forward(source, target) gets three entries: encode
// runs the encoder once and writes each cross-attention's keys and values
// into the cache after the self-attention layers; prefill and decode run
// the decoder, whose cross-attention reads rows [0, length) of them.

module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder_decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  tfm.global_weight @wk : tensor<8x16xf32>
  tfm.global_weight @cross_wk : tensor<8x16xf32>
  // CHECK-NOT: func.func @forward
  func.func @forward(%source: tensor<4xi32>, %target: tensor<4xi32>) -> tensor<4x32xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %cross_wk = tfm.weight @cross_wk : tensor<8x16xf32>
    %x = tfm.embedding %source, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %ek = tfm.linear %x, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %e = tfm.attention %x, %ek, %ek[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    %ck = tfm.linear %e, %cross_wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %y = tfm.embedding %target, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %sk = tfm.linear %y, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %s = tfm.attention %y, %sk, %sk[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    %c = tfm.attention %s, %ck, %ck[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<cross>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    %logits = tfm.lm_head %c, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %logits : tensor<4x32xf32>
  }
}

// CHECK: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<prefill = @prefill, decode = @decode, encode = @encode, prefill_chunk = 8, context_length = 16>

// CHECK-LABEL: func.func @encode
// CHECK-SAME: (%[[SOURCE:[a-z0-9]+]]: tensor<16xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %[[LENGTH:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<length>}, %[[CACHE:[a-z0-9]+]]: tensor<2x2x2x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> tensor<2x2x2x16x4xf32>
// CHECK: %[[X:.*]] = tfm.embedding %[[SOURCE]], %{{.*}} -> tensor<16x16xf32>
// The encoder's attention sees the real rows only.
// CHECK: %[[KEYS:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [2, %[[LENGTH]], 4] [1, 1, 1] : tensor<2x16x4xf32> to tensor<2x?x4xf32>
// CHECK: %[[E:.*]] = tfm.attention %[[X]], %[[KEYS]], %{{.*}} {cache = #tfm.cache_role<none>, mask = #tfm.mask<bidirectional>
// CHECK: %[[CK:.*]] = tfm.linear %[[E]], %{{.*}} -> tensor<16x8xf32>
// Nothing of the decoder.
// CHECK-NOT: tfm.lm_head
// CHECK-NOT: #tfm.cache_role<self>
// The cross keys and values go to layer 1, after the one self-attention.
// CHECK: %[[HEADS:.*]] = linalg.transpose ins(%{{.*}} : tensor<16x2x4xf32>) outs(%{{.*}} : tensor<2x16x4xf32>) permutation = [1, 0, 2]
// CHECK: %[[C1:.*]] = tensor.insert_slice %[[HEADS]] into %[[CACHE]][0, 1, 0, %{{.*}}, 0] [1, 1, 2, 16, 4]
// CHECK: %[[C2:.*]] = tensor.insert_slice %{{.*}} into %[[C1]][1, 1, 0, %{{.*}}, 0] [1, 1, 2, 16, 4]
// CHECK: return %[[C2]] : tensor<2x2x2x16x4xf32>

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: (%[[TOKENS:[a-z0-9]+]]: tensor<8xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %[[POS:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<position>}, %{{[a-z0-9]+}}: index {tfm.entry_arg = #tfm.entry_arg<count>}, %[[PLENGTH:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<length>}, %[[PCACHE:[a-z0-9]+]]: tensor<2x2x2x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> (tensor<1x32xf32>, tensor<2x2x2x16x4xf32>)
// The target's tokens feed the decoder; the encoder is not run again.
// CHECK-NOT: #tfm.cache_role<none>
// CHECK: %[[Y:.*]] = tfm.embedding %[[TOKENS]], %{{.*}} -> tensor<8x16xf32>
// CHECK: %[[S:.*]] = tfm.attention %[[Y]], {{.*}}[%[[POS]]] {cache = #tfm.cache_role<self>, mask = #tfm.mask<causal>
// Cross-attention: rows [0, length) of layer 1.
// CHECK: %[[CKEYS:.*]] = tensor.extract_slice %{{.*}}[0, 1, 0, 0, 0] [1, 1, 2, %[[PLENGTH]], 4] {{.*}} to tensor<2x?x4xf32>
// CHECK: %[[CVALUES:.*]] = tensor.extract_slice %{{.*}}[1, 1, 0, 0, 0] [1, 1, 2, %[[PLENGTH]], 4] {{.*}} to tensor<2x?x4xf32>
// CHECK: tfm.attention %[[S]], %[[CKEYS]], %[[CVALUES]][%[[POS]]] {cache = #tfm.cache_role<cross>, mask = #tfm.mask<bidirectional>
// CHECK: tfm.lm_head

// CHECK-LABEL: func.func @decode
// CHECK-SAME: (%{{[a-z0-9]+}}: tensor<1xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %{{[a-z0-9]+}}: index {tfm.entry_arg = #tfm.entry_arg<position>}, %[[DLENGTH:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<length>}, %{{[a-z0-9]+}}: tensor<2x2x2x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> (tensor<1x32xf32>, tensor<2x2x2x16x4xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 1, 0, 0, 0] [1, 1, 2, %[[DLENGTH]], 4]

// An encode bucket runs the encoder over its 4 rows and stores their keys
// and values in rows [0, 4) of the cross-attention's layer: prefill and
// decode read rows [0, length) with length <= 4.
// BUCKETS: encode = @encode, prefill_chunk = 8, context_length = 16, encode_buckets = [#tfm.encode_bucket<rows = 4, entry = @encode_4>]>
// BUCKETS-LABEL: func.func @encode_4(
// BUCKETS-SAME: %[[SOURCE:[a-z0-9]+]]: tensor<4xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}, %[[LENGTH:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<length>}, %[[CACHE:[a-z0-9]+]]: tensor<2x2x2x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> tensor<2x2x2x16x4xf32>
// BUCKETS: tfm.embedding %[[SOURCE]], %{{.*}} -> tensor<4x16xf32>
// BUCKETS: tensor.extract_slice %{{.*}}[0, 0, 0] [2, %[[LENGTH]], 4] [1, 1, 1] : tensor<2x4x4xf32> to tensor<2x?x4xf32>
// BUCKETS: %[[C1:.*]] = tensor.insert_slice %{{.*}} into %[[CACHE]][0, 1, 0, %{{.*}}, 0] [1, 1, 2, 4, 4]
// BUCKETS: %[[C2:.*]] = tensor.insert_slice %{{.*}} into %[[C1]][1, 1, 0, %{{.*}}, 0] [1, 1, 2, 4, 4]
// BUCKETS: return %[[C2]] : tensor<2x2x2x16x4xf32>
