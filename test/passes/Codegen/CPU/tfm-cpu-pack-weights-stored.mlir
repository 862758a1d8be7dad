// RUN: tfmc-opt %s -tfm-cpu-pack-weights -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-pack-weights=weight-type=f32 -split-input-file | FileCheck %s --check-prefix=ASKED

// Without a weight-type, each projection keeps the type the model file
// stores its matrix in (`stored`): Q8_0 and Q4_0 blocks, f16 and bf16 panels.
// CHECK-LABEL: module
// CHECK-DAG: tfm.global_weight @q8.quants : tensor<1x2x32x16xi8> {block_quant = "q8_0", panels, stacked = ["q8"]}
// CHECK-DAG: tfm.global_weight @q4.quants : tensor<1x2x16x16xi8> {block_quant = "q4_0", panels, stacked = ["q4"]}
// CHECK-DAG: tfm.global_weight @half.panels : tensor<1x64x16xf16> {panels, stacked = ["half"]}
// CHECK-DAG: tfm.global_weight @brain.panels : tensor<1x64x16xbf16> {panels, stacked = ["brain"]}
// CHECK-LABEL: func.func @stored_types
// CHECK: tfm.quantized_linear {{.*}} {format = "q8_0", out_features = 16 : i64}
// CHECK: tfm.quantized_linear {{.*}} {format = "q4_0", out_features = 16 : i64}
// CHECK: tfm.packed_linear {{.*}} : tensor<4x64xf32>, tensor<1x64x16xf16> -> tensor<4x16xf32>
// CHECK: tfm.packed_linear {{.*}} : tensor<4x64xf32>, tensor<1x64x16xbf16> -> tensor<4x16xf32>
// A weight-type asked for applies to every projection, whatever is stored.
// ASKED-LABEL: func.func @stored_types
// ASKED-NOT: quants
// ASKED-COUNT-4: tfm.packed_linear {{.*}} : tensor<4x64xf32>, tensor<1x64x16xf32> -> tensor<4x16xf32>
tfm.global_weight @q8 : tensor<16x64xf32> {stored = "q8_0"}
tfm.global_weight @q4 : tensor<16x64xf32> {stored = "q4_0"}
tfm.global_weight @half : tensor<16x64xf32> {stored = "f16"}
tfm.global_weight @brain : tensor<16x64xf32> {stored = "bf16"}
func.func @stored_types(%x: tensor<4x64xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %w8 = tfm.weight @q8 : tensor<16x64xf32>
  %w4 = tfm.weight @q4 : tensor<16x64xf32>
  %wh = tfm.weight @half : tensor<16x64xf32>
  %wb = tfm.weight @brain : tensor<16x64xf32>
  %y8 = tfm.linear %x, %w8 : tensor<4x64xf32>, tensor<16x64xf32> -> tensor<4x16xf32>
  %y4 = tfm.linear %x, %w4 : tensor<4x64xf32>, tensor<16x64xf32> -> tensor<4x16xf32>
  %yh = tfm.linear %x, %wh : tensor<4x64xf32>, tensor<16x64xf32> -> tensor<4x16xf32>
  %yb = tfm.lm_head %x, %wb : tensor<4x64xf32>, tensor<16x64xf32> -> tensor<4x16xf32>
  return %y8, %y4, %yh, %yb : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// The kernels do not read the k-quants: a Q4_K matrix, dequantized exactly
// into the declared f32, keeps f32 panels.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @k.panels : tensor<1x256x16xf32> {panels, stacked = ["k"]}
// CHECK-LABEL: func.func @k_quant
// CHECK: tfm.packed_linear {{.*}} : tensor<4x256xf32>, tensor<1x256x16xf32> -> tensor<4x16xf32>
tfm.global_weight @k : tensor<16x256xf32> {stored = "q4_k"}
func.func @k_quant(%x: tensor<4x256xf32>) -> tensor<4x16xf32> {
  %w = tfm.weight @k : tensor<16x256xf32>
  %y = tfm.linear %x, %w : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
