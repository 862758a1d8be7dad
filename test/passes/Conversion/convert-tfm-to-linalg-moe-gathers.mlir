// RUN: tfmc-opt %s -convert-tfm-to-linalg=moe=gathers -split-input-file | FileCheck %s

// MoE routing as gathers: the router product, then one op over
// [tokens, top_k] with no loop around it. Each point walks its token's
// choices (reading the logits it gathers) and keeps its own slot's expert
// and weight; softmax_top_k's denominator sums every expert's exp.
// CHECK-LABEL: func.func @moe_route
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>, %[[ROUTER:.*]]: tensor<4x8xf32>)
// CHECK: %[[LOGITS:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[ROUTER]] : tensor<3x8xf32>, tensor<4x8xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[OUT:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} outs(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xi32>)
// CHECK:   %[[TOKEN:.*]] = linalg.index 0
// CHECK:   %[[SLOT:.*]] = linalg.index 1
// CHECK:   tensor.extract %[[LOGITS]][%[[TOKEN]], %{{.*}}] : tensor<3x4xf32>
// CHECK:   %[[CHOICES:.*]]:5 = scf.for %[[K:.*]] = %{{.*}} to %c2
// CHECK:     %[[OWN:.*]] = arith.cmpi eq, %[[K]], %[[SLOT]]
// CHECK:     arith.select %[[OWN]]
// CHECK:   %[[ALL:.*]] = scf.for %{{.*}} = %{{.*}} to %c4
// CHECK:     math.exp
// CHECK:   %[[WEIGHT:.*]] = arith.divf %[[CHOICES]]#4, %[[ALL]]
// CHECK:   %[[ID:.*]] = arith.index_cast %[[CHOICES]]#3 : index to i32
// CHECK:   linalg.yield %[[WEIGHT]], %[[ID]] : f32, i32
// CHECK: return %[[OUT]]#0, %[[OUT]]#1
func.func @moe_route(%x: tensor<3x8xf32>, %router: tensor<4x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<softmax_top_k>} : tensor<3x8xf32>, tensor<4x8xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
  return %weights, %experts : tensor<3x2xf32>, tensor<3x2xi32>
}

// -----

// top_k_softmax's denominator is the sum the walk over the choices made.
// CHECK-LABEL: func.func @moe_route_top_k_softmax
// CHECK: %[[CHOICES:.*]]:5 = scf.for
// CHECK: arith.divf %[[CHOICES]]#4, %[[CHOICES]]#2
func.func @moe_route_top_k_softmax(%x: tensor<3x8xf32>, %router: tensor<4x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<3x8xf32>, tensor<4x8xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
  return %weights, %experts : tensor<3x2xf32>, tensor<3x2xi32>
}

// -----

// MoE experts as gathers: gate and up are products over (token, choice,
// hidden unit, feature) whose bodies gather the chosen expert's row
// (clamped index * 6 + the hidden unit), SwiGLU over [tokens, top_k,
// hidden], down likewise over each choice's own hidden units, and the
// choices' weighted sum over (token, choice, feature) last.
// CHECK-LABEL: func.func @moe_experts
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>, %[[WEIGHTS:.*]]: tensor<3x2xf32>, %[[EXPERTS:.*]]: tensor<3x2xi32>, %[[GATE:.*]]: tensor<24x8xf32>, %[[UP:.*]]: tensor<24x8xf32>, %[[DOWN:.*]]: tensor<32x6xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[G:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[EXPERTS]] : tensor<3x8xf32>, tensor<3x2xi32>) outs(%{{.*}} : tensor<3x2x6xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ID:.*]]: i32, %[[ACC:.*]]: f32):
// CHECK:   %[[INDEX:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK:   %[[LOW:.*]] = arith.maxsi %[[INDEX]], %c0
// CHECK:   %[[EXPERT:.*]] = arith.minsi %[[LOW]], %c3
// CHECK:   %[[UNIT:.*]] = linalg.index 2
// CHECK:   %[[FIRST:.*]] = arith.muli %[[EXPERT]], %c6
// CHECK:   %[[ROW:.*]] = arith.addi %[[FIRST]], %[[UNIT]]
// CHECK:   %[[FEATURE:.*]] = linalg.index 3
// CHECK:   %[[W:.*]] = tensor.extract %[[GATE]][%[[ROW]], %[[FEATURE]]] : tensor<24x8xf32>
// CHECK:   arith.mulf %[[IN]], %[[W]]
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[EXPERTS]] : tensor<3x8xf32>, tensor<3x2xi32>)
// CHECK:   tensor.extract %[[UP]]
// CHECK: %[[INNER:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[U]] : tensor<3x2x6xf32>, tensor<3x2x6xf32>)
// CHECK:   math.exp
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[INNER]], %[[EXPERTS]] : tensor<3x2x6xf32>, tensor<3x2xi32>) outs(%{{.*}} : tensor<3x2x8xf32>)
// CHECK:   arith.muli %{{.*}}, %c8
// CHECK:   tensor.extract %[[DOWN]]{{.*}} : tensor<32x6xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[WEIGHTS]], %[[D]] : tensor<3x2xf32>, tensor<3x2x8xf32>) outs(%{{.*}} : tensor<3x8xf32>)
// CHECK: return %[[SUM]]
func.func @moe_experts(%x: tensor<3x8xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x2xi32>, %gate: tensor<24x8xf32>, %up: tensor<24x8xf32>, %down: tensor<32x6xf32>) -> tensor<3x8xf32> {
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<32x6xf32>
  return %y : tensor<3x8xf32>
}

// -----

// 16-bit experts and router: the gathered elements are widened.
// CHECK-LABEL: func.func @moe_bf16
// CHECK: ^bb0(%[[A:.*]]: f32, %[[R:.*]]: bf16, %{{.*}}: f32):
// CHECK:   arith.extf %[[R]] : bf16 to f32
// CHECK: %[[W:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<24x8xbf16>
// CHECK: arith.extf %[[W]] : bf16 to f32
func.func @moe_bf16(%x: tensor<3x8xf32>, %router: tensor<4x8xbf16>, %gate: tensor<24x8xbf16>, %up: tensor<24x8xbf16>, %down: tensor<32x6xbf16>) -> tensor<3x8xf32> {
  %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<3x8xf32>, tensor<4x8xbf16> -> tensor<3x2xf32>, tensor<3x2xi32>
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x8xbf16>, tensor<24x8xbf16>, tensor<32x6xbf16>
  return %y : tensor<3x8xf32>
}
