// RUN: tfmc-opt %s -tfm-split-shared-fills -split-input-file | FileCheck %s

// One zero fill (as CSE leaves it) initialises two accumulations: each gets
// its own tensor.empty and fill, so both bufferize in place.
// CHECK-LABEL: func.func @two_accumulators
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[F2]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[F1]] : tensor<4xf32>)
func.func @two_accumulators(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %sx = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %sy = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sx, %sy : tensor<4xf32>, tensor<4xf32>
}

// -----

// One tensor.empty (as CSE leaves it) is the destination of two parallel
// loops: each gets its own, so that their results do not alias.
// CHECK-LABEL: func.func @two_loops
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[E2]])
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[E1]])
func.func @two_loops(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %empty = tensor.empty() : tensor<4xf32>
  %a = scf.forall (%i) in (4) shared_outs(%out = %empty) -> (tensor<4xf32>) {
    %v = tensor.extract_slice %x[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %v into %out[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  %b = scf.forall (%i) in (4) shared_outs(%out = %empty) -> (tensor<4xf32>) {
    %v = tensor.extract_slice %a[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %v into %out[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
