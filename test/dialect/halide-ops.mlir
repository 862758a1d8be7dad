// RUN: tfmc-opt %s -split-input-file | tfmc-opt -split-input-file | FileCheck %s

// A kernel and its calls round-trip, on tensors and on buffers.
// CHECK: tfm_halide.kernel @norm_0 {description = {{.*}}, kind = "norm"}
// CHECK-LABEL: func.func @on_tensors(
// CHECK: tfm_halide.call @norm_0(%{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<1x8xf32>) -> tensor<1x8xf32>
// CHECK-LABEL: func.func @on_buffers(
// CHECK: tfm_halide.call @norm_0(%{{.*}}, %{{.*}} : memref<1x8xf32>, memref<8xf32>) outs(%{{.*}} : memref<1x8xf32>){{$}}
module {
  tfm_halide.kernel @norm_0 {kind = "norm", description = "{\22kernels\22: [{\22kind\22: \22norm\22, \22name\22: \22norm_0\22, \22target\22: {\22features\22: [\22avx2\22]}, \22rows\22: 1, \22features\22: 8, \22norm\22: \22rms_norm\22}]}"}
  func.func @on_tensors(%x: tensor<1x8xf32>, %w: tensor<8xf32>, %y: tensor<1x8xf32>) -> tensor<1x8xf32> {
    %0 = tfm_halide.call @norm_0(%x, %w : tensor<1x8xf32>, tensor<8xf32>) outs(%y : tensor<1x8xf32>) -> tensor<1x8xf32>
    return %0 : tensor<1x8xf32>
  }
  func.func @on_buffers(%x: memref<1x8xf32>, %w: memref<8xf32>, %y: memref<1x8xf32>) {
    tfm_halide.call @norm_0(%x, %w : memref<1x8xf32>, memref<8xf32>) outs(%y : memref<1x8xf32>)
    return
  }
}
