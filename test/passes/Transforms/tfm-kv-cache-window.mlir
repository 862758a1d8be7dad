// RUN: tfmc-opt %s -tfm-kv-cache=prefill-chunk=4 -split-input-file | FileCheck %s

// A sliding window of 3 in a context of 16: the cache is a ring of
// 3 + 4 - 1 = 6 slots. Prefill writes its 4 rows from slot pos mod 6 on,
// wrapping to slot 0 (the rows that do not fit before the end go to the
// start), and attention reads the written slots, at most 6, as a ring.

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  tfm.global_weight @wk : tensor<8x16xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %x = tfm.embedding %tokens, %wk : tensor<4xi32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %k = tfm.linear %x, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %a = tfm.attention %x, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    return %a : tensor<4x16xf32>
  }
}

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: %[[POS:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<position>}
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: tensor<2x1x2x6x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
// CHECK: %[[HEADS:.*]] = linalg.transpose
// CHECK: %[[FIRST:.*]] = arith.remui %[[POS]], %[[SLOTS:.*]] : index
// CHECK: %[[ROOM:.*]] = arith.subi %[[SLOTS]], %[[FIRST]]
// CHECK: %[[BEFORE:.*]] = arith.minui %{{.*}}, %[[ROOM]]
// CHECK: %[[AFTER:.*]] = arith.subi %{{.*}}, %[[BEFORE]]
// CHECK: %[[HEAD:.*]] = tensor.extract_slice %[[HEADS]][0, 0, 0] [2, %[[BEFORE]], 4]
// CHECK: %[[C1:.*]] = tensor.insert_slice %[[HEAD]] into %[[CACHE]][0, 0, 0, %[[FIRST]], 0] [1, 1, 2, %[[BEFORE]], 4]
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %[[HEADS]][0, %[[BEFORE]], 0] [2, %[[AFTER]], 4]
// CHECK: %[[C2:.*]] = tensor.insert_slice %[[TAIL]] into %[[C1]][0, 0, 0, 0, 0] [1, 1, 2, %[[AFTER]], 4]
// CHECK: %[[END:.*]] = arith.addi %[[POS]], %{{.*}} : index
// CHECK: %[[VISIBLE:.*]] = arith.minui %[[END]], %{{.*}} : index
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 1, 2, %[[VISIBLE]], 4]
// CHECK: tfm.attention {{.*}}mask = #tfm.mask<sliding_window>{{.*}}ring = 6 : i64, window = 3 : i64

// Decode writes its one row at slot pos mod 6.
// CHECK-LABEL: func.func @decode
// CHECK-SAME: %[[DPOS:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<position>}
// CHECK: %[[SLOT:.*]] = arith.remui %[[DPOS]], %{{.*}} : index
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, %[[SLOT]], 0] [1, 1, 2, 1, 4]
// CHECK: tfm.attention {{.*}}ring = 6 : i64

// -----

// A window that, with the chunk, covers the context needs no ring.
module attributes {tfm.model = #tfm.model<context_length = 6, kind = decoder, network = @forward>} {
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<4x16xf32>
    %k = arith.constant dense<1.0> : tensor<4x8xf32>
    %a = tfm.attention %x, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    return %a : tensor<4x16xf32>
  }
}

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: tensor<2x1x2x6x4xf32>
// CHECK-NOT: arith.remui
// CHECK: tfm.attention
// CHECK-NOT: ring
// CHECK-SAME: window = 3

// -----

// Layers of different windows (Qwen2: full attention in the first layers,
// a window in the others) keep their own slots: the causal layer all 16
// positions, the windowed one a ring of 3 + 4 - 1 = 6. The cache is the
// [kv heads * slots] rows of each layer's keys, then of its values:
// 2 * (2 * 16 + 2 * 6) = 88 rows of 4 features. Keys of layer 0 are rows
// [0, 32) (head 1 from row 16), of layer 1 rows [32, 44); values from 44.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<4x16xf32>
    %k = arith.constant dense<1.0> : tensor<4x8xf32>
    %a = tfm.attention %x, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    %b = tfm.attention %a, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    return %b : tensor<4x16xf32>
  }
}

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: %[[POS:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<position>}
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: tensor<88x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
// Layer 0 writes each head's rows at its position.
// CHECK: %[[K0:.*]] = tensor.insert_slice %{{.*}} into %[[CACHE]][%[[POS]], 0] [4, 4]
// CHECK: %[[ROW1:.*]] = arith.addi %[[POS]], %c16
// CHECK: tensor.insert_slice %{{.*}} into %[[K0]][%[[ROW1]], 0] [4, 4]
// CHECK: arith.addi %[[POS]], %c44
// CHECK: arith.addi %[[POS]], %c60
// and attends over the positions so far of its [2, 16, 4] keys and values.
// CHECK: %[[KEYS0:.*]] = tensor.extract_slice %{{.*}}[0, 0] [32, 4]
// CHECK: %[[HEADS0:.*]] = tensor.expand_shape %[[KEYS0]] {{\[}}[0, 1], [2]] output_shape [2, 16, 4]
// CHECK: tensor.extract_slice %[[HEADS0]][0, 0, 0] [2, %{{.*}}, 4]
// CHECK: tensor.extract_slice %{{.*}}[44, 0] [32, 4]
// CHECK: tfm.attention {{.*}}mask = #tfm.mask<causal>
// CHECK-NOT: ring
// CHECK-SAME: : tensor
// Layer 1 writes from slot pos mod 6 of its ring on, rows 32 and 38 on.
// CHECK: %[[SLOT:.*]] = arith.remui %[[POS]], %c6
// CHECK: %[[RING0:.*]] = arith.addi %[[SLOT]], %c32
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[RING0]], 0]
// CHECK: %[[RING1:.*]] = arith.addi %[[SLOT]], %c38
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[RING1]], 0]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[32, 0]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[38, 0]
// CHECK: tensor.extract_slice %{{.*}}[32, 0] [12, 4]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 6, 4]
// CHECK: tensor.extract_slice %{{.*}}[76, 0] [12, 4]
// CHECK: tfm.attention {{.*}}mask = #tfm.mask<sliding_window>{{.*}}ring = 6 : i64, window = 3 : i64
// CHECK-LABEL: func.func @decode
// CHECK-SAME: tensor<88x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
// CHECK: tfm.attention {{.*}}mask = #tfm.mask<causal>
// CHECK-NOT: ring
// CHECK-SAME: : tensor
// CHECK: arith.remui
// CHECK: tfm.attention {{.*}}mask = #tfm.mask<sliding_window>{{.*}}ring = 6 : i64, window = 3 : i64
