// RUN: tfmc-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// One parallel loop over (query row, head). Each iteration reads its query
// once, stops at its own position (causal: offset + row + 1 keys) and walks
// the keys in blocks of 4 carrying the running maximum, sum and output
// vector; per block one vector of scores is all that exists. Query head h
// reads key/value head h / 2. Whole blocks are unrolled (4 dot products
// kept as partial sums, reduced together by one tree of shuffles); the
// last, partial block walks its keys one at a time.
// CHECK-LABEL: func.func @flash
// CHECK-SAME: (%[[Q:.*]]: tensor<2x16xf32>, %[[K:.*]]: tensor<?x8xf32>, %[[V:.*]]: tensor<?x8xf32>, %[[POS:.*]]: index)
// CHECK: %[[KEYS:.*]] = tensor.dim %[[K]]
// CHECK: scf.forall (%[[ROW:.*]], %[[HEAD:.*]]) in (2, 4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x16xf32>)
// CHECK:   %[[QCOL:.*]] = arith.muli %[[HEAD]], %c4
// CHECK:   %[[KVHEAD:.*]] = arith.divui %[[HEAD]], %c2
// CHECK:   %[[KVCOL:.*]] = arith.muli %[[KVHEAD]], %c4
// CHECK:   %[[QROW:.*]] = vector.transfer_read %[[Q]][%[[ROW]], %[[QCOL]]]{{.*}} : tensor<2x16xf32>, vector<4xf32>
// CHECK:   %[[SEEN:.*]] = arith.addi %[[POS]], %[[ROW]]
// CHECK:   %[[OWN:.*]] = arith.addi %[[SEEN]], %c1
// CHECK:   %[[VISIBLE:.*]] = arith.minui %[[OWN]], %[[KEYS]]
// CHECK:   %[[COUNT:.*]] = arith.divui %[[VISIBLE]], %[[B:.*]] : index
// CHECK:   %[[WHOLE:.*]] = arith.muli %[[COUNT]], %[[B]] : index
// Whole blocks are software-pipelined: block 0's scores before the loop,
// block i + 1's scores in the iteration that folds block i, the last block
// folded after the loop.
// CHECK:   %[[ANY:.*]] = arith.cmpi ugt, %[[WHOLE]], %{{.*}} : index
// CHECK:   %[[FULL:.*]]:3 = scf.if %[[ANY]] -> (f32, f32, vector<4xf32>)
// CHECK:     %[[LAST:.*]] = arith.subi %[[WHOLE]], %[[B2:.*]] : index
// CHECK-COUNT-4: vector.transfer_read %[[K]]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [2, 3, 6, 7]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7]
// CHECK:     %[[FIRSTSCORES:.*]] = arith.addf {{.*}} : vector<4xf32>
// CHECK:     %[[PIPE:.*]]:4 = scf.for %[[AT:.*]] = %{{.*}} to %[[LAST]] step %[[B2]] iter_args({{.*}}, %[[SCORES:.*]] = %[[FIRSTSCORES]]) -> (f32, f32, vector<4xf32>, vector<4xf32>)
// CHECK:       %[[NEXT:.*]] = arith.addi %[[AT]], %[[B2]]
// CHECK-COUNT-4: vector.transfer_read %[[K]]
// CHECK:       vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7]
// CHECK:       %[[NEXTSCORES:.*]] = arith.addf {{.*}} : vector<4xf32>
// CHECK:       vector.reduction <maxnumf>, %[[SCORES]]
// CHECK:       math.exp {{.*}} : vector<4xf32>
// CHECK-COUNT-4: vector.fma
// CHECK:       scf.yield {{.*}}, %[[NEXTSCORES]] : f32, f32, vector<4xf32>, vector<4xf32>
// CHECK:     vector.reduction <maxnumf>, %[[PIPE]]#3
// CHECK-COUNT-4: vector.fma
// CHECK:     scf.yield
// CHECK:   } else {
// CHECK:     scf.yield
// CHECK:   %[[BLOCKS:.*]]:3 = scf.for %[[FIRST:.*]] = %[[WHOLE]] to %[[VISIBLE]] step %[[B]] iter_args(%{{.*}} = %[[FULL]]#0, %{{.*}} = %[[FULL]]#1, %{{.*}} = %[[FULL]]#2) -> (f32, f32, vector<4xf32>)
// CHECK:     scf.for {{.*}} -> (vector<4xf32>)
// CHECK:       vector.transfer_read %[[K]][%{{.*}}, %[[KVCOL]]]
// CHECK:       vector.reduction <add>
// CHECK:       vector.insert
// CHECK:     vector.reduction <maxnumf>
// CHECK:     math.exp {{.*}} : vector<4xf32>
// CHECK:     math.exp {{.*}} : f32
// CHECK:     scf.for {{.*}} -> (vector<4xf32>)
// CHECK:       vector.transfer_read %[[V]][%{{.*}}, %[[KVCOL]]]
// CHECK:       vector.fma
// CHECK:   arith.divf %[[BLOCKS]]#2
// CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[OUT]][%[[ROW]], %[[QCOL]]] [1, 4] [1, 1]
// CHECK:   vector.transfer_write %{{.*}}, %[[SLICE]]
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[ROW]], %[[QCOL]]] [1, 4] [1, 1]
// CHECK-NOT: tensor<4x2x
func.func @flash(%q: tensor<2x16xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>, %pos: index) -> tensor<2x16xf32> {
  %o = tfm.flash_attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal, block_keys = 4 : i64} : tensor<2x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>
  return %o : tensor<2x16xf32>
}

// -----

// Head-major keys and values (the KV cache's layout): the key count is
// dimension 1 and key j of kv head h / 2 is row j of that head's block.
// CHECK-LABEL: func.func @flash_head_major
// CHECK-SAME: (%{{.*}}: tensor<1x16xf32>, %[[K:.*]]: tensor<2x?x4xf32>, %[[V:.*]]: tensor<2x?x4xf32>, %{{.*}}: index)
// CHECK: %[[KEYS:.*]] = tensor.dim %[[K]], %c1
// CHECK: scf.forall (%{{.*}}, %[[HEAD:.*]]) in (1, 4)
// CHECK:   %[[KVHEAD:.*]] = arith.divui %[[HEAD]], %c2
// CHECK:   arith.minui %{{.*}}, %[[KEYS]]
// CHECK:       vector.transfer_read %[[K]][%[[KVHEAD]], %{{.*}}, %{{.*}}]{{.*}} : tensor<2x?x4xf32>, vector<4xf32>
// CHECK:       vector.transfer_read %[[V]][%[[KVHEAD]], %{{.*}}, %{{.*}}]{{.*}} : tensor<2x?x4xf32>, vector<4xf32>
func.func @flash_head_major(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf32>, %v: tensor<2x?x4xf32>, %pos: index) -> tensor<1x16xf32> {
  %o = tfm.flash_attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal, block_keys = 4 : i64} : tensor<1x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>
  return %o : tensor<1x16xf32>
}

// -----

// Blocks whose width does not divide head_dim (6 features, blocks of 4) are
// not unrolled: every block walks its keys one at a time.
// CHECK-LABEL: func.func @flash_not_unrolled
// CHECK-NOT: vector.shuffle
// CHECK: vector.insert
// CHECK-NOT: vector.shuffle
// CHECK: return
func.func @flash_not_unrolled(%q: tensor<1x12xf32>, %k: tensor<?x6xf32>, %v: tensor<?x6xf32>, %pos: index) -> tensor<1x12xf32> {
  %o = tfm.flash_attention %q, %k, %v[%pos] {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, block_keys = 4 : i64} : tensor<1x12xf32>, tensor<?x6xf32>, tensor<?x6xf32>
  return %o : tensor<1x12xf32>
}
