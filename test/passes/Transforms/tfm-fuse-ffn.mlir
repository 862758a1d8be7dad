// RUN: tfmc-opt %s -tfm-fuse-ffn -split-input-file | FileCheck %s

// SwiGLU: gate and up become one linear; SiLU and the product read its halves.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @layers.0.ffn.w_gate_up : tensor<12x4xf32> {stacked = ["layers.0.ffn.w_gate", "layers.0.ffn.w_up"]}
tfm.global_weight @layers.0.ffn.w_gate : tensor<6x4xf32>
tfm.global_weight @layers.0.ffn.w_up : tensor<6x4xf32>
// CHECK-LABEL: func.func @swiglu
func.func @swiglu(%x: tensor<2x4xf32>) -> tensor<2x6xf32> {
  // CHECK: %[[GU:.*]] = tfm.linear %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<12x4xf32> -> tensor<2x12xf32>
  // CHECK: %[[G:.*]] = tensor.extract_slice %[[GU]][0, 0] [2, 6] [1, 1]
  // CHECK: %[[U:.*]] = tensor.extract_slice %[[GU]][0, 6] [2, 6] [1, 1]
  // CHECK: %[[S:.*]] = tfm.silu %[[G]]
  // CHECK: tfm.mul %[[S]], %[[U]]
  %wg = tfm.weight @layers.0.ffn.w_gate : tensor<6x4xf32>
  %wu = tfm.weight @layers.0.ffn.w_up : tensor<6x4xf32>
  %g = tfm.linear %x, %wg : tensor<2x4xf32>, tensor<6x4xf32> -> tensor<2x6xf32>
  %u = tfm.linear %x, %wu : tensor<2x4xf32>, tensor<6x4xf32> -> tensor<2x6xf32>
  %s = tfm.silu %g : tensor<2x6xf32>
  %m = tfm.mul %s, %u : tensor<2x6xf32>
  return %m : tensor<2x6xf32>
}

// -----

// Two linears of one input that are not a SwiGLU pair stay apart.
tfm.global_weight @a : tensor<6x4xf32>
tfm.global_weight @b : tensor<6x4xf32>
// CHECK-LABEL: func.func @not_swiglu
func.func @not_swiglu(%x: tensor<2x4xf32>) -> tensor<2x6xf32> {
  // CHECK-COUNT-2: tfm.linear
  %wa = tfm.weight @a : tensor<6x4xf32>
  %wb = tfm.weight @b : tensor<6x4xf32>
  %p = tfm.linear %x, %wa : tensor<2x4xf32>, tensor<6x4xf32> -> tensor<2x6xf32>
  %q = tfm.linear %x, %wb : tensor<2x4xf32>, tensor<6x4xf32> -> tensor<2x6xf32>
  %m = tfm.add %p, %q : tensor<2x6xf32>
  return %m : tensor<2x6xf32>
}
