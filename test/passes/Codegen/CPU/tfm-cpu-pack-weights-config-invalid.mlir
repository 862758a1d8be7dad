// RUN: tfmc-opt %s -split-input-file -tfm-cpu-pack-weights -verify-diagnostics

// A projection configured for panels whose weight is not a declared matrix
// (here: a function argument) has nothing to pack.
func.func @computed_weight(%x: tensor<4x8xf32>, %w: tensor<32x8xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{has a kernel configuration but its weight is no declared matrix to pack}}
  %y = tfm.linear %x, %w {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

