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
