// RUN: tfmc-opt %s -tfm-cpu-pack-weights -verify-diagnostics

// The dialect accepts 16-bit weights; the CPU's panels are f32 until the
// micro-kernels read 16-bit panels.
tfm.global_weight @w : tensor<8x16xbf16>
func.func @bf16_weight(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %w = tfm.weight @w : tensor<8x16xbf16>
  // expected-error @below {{reads a 'bf16' weight; tfm-cpu-pack-weights packs f32 weights only (run with pack-weights=false, or load the weights as f32)}}
  %y = tfm.linear %x, %w : tensor<4x16xf32>, tensor<8x16xbf16> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
