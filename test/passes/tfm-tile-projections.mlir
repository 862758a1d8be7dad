// RUN: tfmc-opt %s -tfm-tile-projections -canonicalize -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-tile-projections=parallel-tiles=1 -canonicalize -split-input-file | FileCheck %s --check-prefix=FEWTASKS

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>

// Prefill: threads share the 4 panels; each micro-kernel keeps 8 rows x 16
// lanes of accumulators in registers across the loop over the 8 input
// features, reading them once before it and writing them once after it.
// CHECK-LABEL: func.func @prefill
// CHECK: scf.forall (%[[P:.*]]) in (4) shared_outs
// CHECK:   scf.for %[[S:.*]] = %c0 to %c16 step %c8
// CHECK:     %[[INIT:.*]] = vector.transfer_read {{.*}} : tensor<8x1x16xf32>, vector<8x16xf32>
// CHECK:     %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%[[A:.*]] = %[[INIT]]) -> (vector<8x16xf32>)
// CHECK:       %[[X:.*]] = vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1x16xf32>
// CHECK:       %[[W:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf32>, vector<8x1x16xf32>
// CHECK:       %[[NEXT:.*]] = vector.contract {{.*}} %[[X]], %[[W]], %[[A]]
// CHECK:       scf.yield %[[NEXT]] : vector<8x16xf32>
// CHECK:     vector.transfer_write %[[ACC]]
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
func.func @prefill(%x: tensor<16x8xf32>, %w: tensor<4x8x16xf32>, %init: tensor<16x4x16xf32>) -> tensor<16x4x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %w : tensor<16x8xf32>, tensor<4x8x16xf32>) outs(%init : tensor<16x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x4x16xf32>
  return %r : tensor<16x4x16xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>

// Decode (one row): a micro-kernel takes several panels, so that several
// independent FMA chains hide the FMA latency, as long as 16 panel groups
// are left for the threads (32 panels: 2 per micro-kernel); with
// parallel-tiles=1 it takes all 8 accumulators.
// CHECK-LABEL: func.func @decode
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (2)
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<2x1x16xf32>)
// FEWTASKS-LABEL: func.func @decode
// FEWTASKS: scf.forall (%{{.*}}) = (0) to (32) step (8)
// FEWTASKS:   scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x1x16xf32>)
func.func @decode(%x: tensor<1x8xf32>, %w: tensor<32x8x16xf32>, %init: tensor<1x32x16xf32>) -> tensor<1x32x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %w : tensor<1x8xf32>, tensor<32x8x16xf32>) outs(%init : tensor<1x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x16xf32>
  return %r : tensor<1x32x16xf32>
}

// -----

// Other contractions (here: a row-major weight) are left to the generic
// loop lowering.
// CHECK-LABEL: func.func @row_major_weight
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
func.func @row_major_weight(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %init: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(o, s, k) -> (s, k)>, affine_map<(o, s, k) -> (o, k)>, affine_map<(o, s, k) -> (s, o)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x8xf32>, tensor<4x8xf32>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
