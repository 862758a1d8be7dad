// RUN: tfmc-opt %s -tfm-fuse-elementwise -split-input-file | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>

// An elementwise producer with one use fuses into an elementwise consumer:
// SiLU(gate) * up becomes one loop nest that reads gate and up.
// CHECK-LABEL: func.func @into_elementwise
// CHECK-SAME: (%[[GATE:.*]]: tensor<4x8xf32>, %[[UP:.*]]: tensor<4x8xf32>)
// CHECK: %[[FUSED:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[GATE]], %[[UP]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return %[[FUSED]]
func.func @into_elementwise(%gate: tensor<4x8xf32>, %up: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %empty = tensor.empty() : tensor<4x8xf32>
  %silu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate : tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%g: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %g, %d : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %product = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%silu, %up : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%s: f32, %u: f32, %out: f32):
    %p = arith.mulf %s, %u : f32
    linalg.yield %p : f32
  } -> tensor<4x8xf32>
  return %product : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A consumer with a reduction keeps reading the producer's materialised
// result: fused, the producer would be recomputed once per output feature.
// CHECK-LABEL: func.func @not_into_reduction
// CHECK: %[[SILU:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[SILU]], %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK-NOT: math.exp
func.func @not_into_reduction(%gate: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %empty = tensor.empty() : tensor<4x8xf32>
  %silu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate : tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%g: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %g, %d : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %acc = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %down = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%silu, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%s: f32, %x: f32, %a: f32):
    %p = arith.mulf %s, %x : f32
    %sum = arith.addf %a, %p : f32
    linalg.yield %sum : f32
  } -> tensor<4x16xf32>
  return %down : tensor<4x16xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A producer read twice is computed once and materialised, not once per
// consumer.
// CHECK-LABEL: func.func @shared_producer
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[E]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[E]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NOT: math.exp
func.func @shared_producer(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %empty = tensor.empty() : tensor<4x8xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %product = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %sum, %product : tensor<4x8xf32>, tensor<4x8xf32>
}
