// RUN: tfmc-opt %s -split-input-file | tfmc-opt -split-input-file | FileCheck %s

// A matrix kept in its GGUF blocks round-trips: its quants and scales
// (#tfm_gpu.blocks) and the op that reads them.
// CHECK: tfm.global_weight @wq.q4_0 : tensor<8x2x16x1xi8> {layout = #tfm_gpu.blocks<q4_0>, stacked = ["wq"]}
// CHECK: tfm.global_weight @wq.q4_0.scales : tensor<8x2x1xf16> {layout = #tfm_gpu.blocks<q4_0, scales>, stacked = ["wq"]}
// CHECK-LABEL: func.func @q4_0
// CHECK: tfm_gpu.dequantize q4_0 %{{.*}}, %{{.*}} : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
tfm.global_weight @wq.q4_0 : tensor<8x2x16x1xi8> {layout = #tfm_gpu.blocks<q4_0>, stacked = ["wq"]}
tfm.global_weight @wq.q4_0.scales : tensor<8x2x1xf16> {layout = #tfm_gpu.blocks<q4_0, scales>, stacked = ["wq"]}
func.func @q4_0() -> tensor<8x64xf32> {
  %q = tfm.weight @wq.q4_0 : tensor<8x2x16x1xi8>
  %s = tfm.weight @wq.q4_0.scales : tensor<8x2x1xf16>
  %w = tfm_gpu.dequantize q4_0 %q, %s : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
  return %w : tensor<8x64xf32>
}

// -----

// CHECK-LABEL: func.func @q8_0
// CHECK: tfm_gpu.dequantize q8_0 %{{.*}}, %{{.*}} : tensor<4x1x32x1xi8>, tensor<4x1x1xf16> -> tensor<4x32xf32>
func.func @q8_0(%q: tensor<4x1x32x1xi8>, %s: tensor<4x1x1xf16>) -> tensor<4x32xf32> {
  %w = tfm_gpu.dequantize q8_0 %q, %s : tensor<4x1x32x1xi8>, tensor<4x1x1xf16> -> tensor<4x32xf32>
  return %w : tensor<4x32xf32>
}

// -----

// The k-quants: Q4_K's nibbles with f32 scales and minimums; Q6_K's bytes
// in blocks of 16, without minimums (they are zero).
// CHECK-LABEL: func.func @kquants
// CHECK: tfm_gpu.dequantize kquant4 %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8x16x1xi8>, tensor<4x8x1xf32>, tensor<4x8x1xf32> -> tensor<4x256xf32>
// CHECK: tfm_gpu.dequantize kquant %{{.*}}, %{{.*}} : tensor<4x16x16x1xi8>, tensor<4x16x1xf32> -> tensor<4x256xf32>
func.func @kquants(%q4: tensor<4x8x16x1xi8>, %s4: tensor<4x8x1xf32>, %m4: tensor<4x8x1xf32>, %q6: tensor<4x16x16x1xi8>, %s6: tensor<4x16x1xf32>) -> (tensor<4x256xf32>, tensor<4x256xf32>) {
  %a = tfm_gpu.dequantize kquant4 %q4, %s4, %m4 : tensor<4x8x16x1xi8>, tensor<4x8x1xf32>, tensor<4x8x1xf32> -> tensor<4x256xf32>
  %b = tfm_gpu.dequantize kquant %q6, %s6 : tensor<4x16x16x1xi8>, tensor<4x16x1xf32> -> tensor<4x256xf32>
  return %a, %b : tensor<4x256xf32>, tensor<4x256xf32>
}
