// RUN: tfmc-opt %s -tfm-split-shared-fills | FileCheck %s

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
