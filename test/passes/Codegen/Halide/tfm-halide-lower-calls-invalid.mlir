// RUN: tfmc-opt %s -split-input-file -tfm-halide-lower-calls -verify-diagnostics

module {
  tfm_halide.kernel @norm_0 {kind = "norm", description = "{\22kernels\22: [{\22kind\22: \22norm\22, \22name\22: \22norm_0\22, \22target\22: {\22features\22: [\22avx2\22]}, \22rows\22: 1, \22features\22: 8, \22norm\22: \22rms_norm\22}]}"}
  func.func @tensors(%x: tensor<1x8xf32>, %w: tensor<8xf32>, %y: tensor<1x8xf32>) -> tensor<1x8xf32> {
    // expected-error @+1 {{must be bufferized before its call is lowered}}
    %0 = tfm_halide.call @norm_0(%x, %w : tensor<1x8xf32>, tensor<8xf32>) outs(%y : tensor<1x8xf32>) -> tensor<1x8xf32>
    return %0 : tensor<1x8xf32>
  }
}
