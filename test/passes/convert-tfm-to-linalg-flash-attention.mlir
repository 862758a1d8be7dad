// RUN: tfmc-opt %s -convert-tfm-to-linalg | FileCheck %s

// One parallel loop over (query row, head). Each iteration reads its query
// once, stops at its own position (causal: offset + row + 1 keys) and walks
// the keys in blocks of 4 carrying the running maximum, sum and output
// vector; per block one vector of scores is all that exists. Query head h
// reads key/value head h / 2.
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
// CHECK:   %[[BLOCKS:.*]]:3 = scf.for %[[FIRST:.*]] = %{{.*}} to %[[VISIBLE]] step %c4{{.*}} iter_args({{.*}}) -> (f32, f32, vector<4xf32>)
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
