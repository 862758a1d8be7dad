// RUN: tfmc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{has an invalid description}}
tfm_halide.kernel @norm_0 {kind = "norm", description = "{\22kernels\22: [{\22kind\22: \22norm\22, \22name\22: \22norm_0\22}]}"}

// -----

// expected-error @+1 {{describes kernel 'norm_1', not @norm_0}}
tfm_halide.kernel @norm_0 {kind = "norm", description = "{\22kernels\22: [{\22kind\22: \22norm\22, \22name\22: \22norm_1\22, \22target\22: {\22features\22: [\22avx2\22]}, \22rows\22: 1, \22features\22: 8, \22norm\22: \22rms_norm\22}]}"}

// -----

// expected-error @+1 {{is a 'projection' kernel whose description is a 'norm'}}
tfm_halide.kernel @norm_0 {kind = "projection", description = "{\22kernels\22: [{\22kind\22: \22norm\22, \22name\22: \22norm_0\22, \22target\22: {\22features\22: [\22avx2\22]}, \22rows\22: 1, \22features\22: 8, \22norm\22: \22rms_norm\22}]}"}

// -----

func.func @missing(%x: tensor<1x8xf32>, %y: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{calls 'nowhere', which is no tfm_halide.kernel}}
  %0 = tfm_halide.call @nowhere(%x : tensor<1x8xf32>) outs(%y : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

tfm_halide.kernel @norm_0 {kind = "norm", description = "{\22kernels\22: [{\22kind\22: \22norm\22, \22name\22: \22norm_0\22, \22target\22: {\22features\22: [\22avx2\22]}, \22rows\22: 1, \22features\22: 8, \22norm\22: \22rms_norm\22}]}"}
func.func @mixed(%x: tensor<1x8xf32>, %y: memref<1x8xf32>) {
  // expected-error @+1 {{takes tensors or buffers, not both}}
  tfm_halide.call @norm_0(%x : tensor<1x8xf32>) outs(%y : memref<1x8xf32>)
  return
}

// -----

// expected-error @+1 {{block rows are of a GGUF block type (q8_0, q4_0, q4_k, q5_k, q6_k), not f16}}
tfm.global_weight @w : tensor<4x8xi8> {layout = #tfm_halide.block_rows<f16>, stacked = ["w"]}

// -----

// expected-error @+1 {{block rows are [rows, row bytes] i8 tensors, got 'tensor<4x8xf32>'}}
tfm.global_weight @w : tensor<4x8xf32> {layout = #tfm_halide.block_rows<q8_0>, stacked = ["w"]}
