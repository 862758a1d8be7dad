// RUN: tfmc-opt %s -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -split-input-file | tfmc-opt -split-input-file | FileCheck %s

// Q8_0 panels: [panels, blocks, 32, width] i8 quants and [panels, blocks,
// width] f16 scales of one matrix, read together.
// CHECK: tfm.global_weight @wo.quants : tensor<3x2x32x16xi8> {block_quant = "q8_0", panels}
tfm.global_weight @wo.quants : tensor<3x2x32x16xi8> {block_quant = "q8_0", panels}
// CHECK: tfm.global_weight @wo.scales : tensor<3x2x16xf16> {block_quant = "q8_0", block_scales, panels}
tfm.global_weight @wo.scales : tensor<3x2x16xf16> {block_quant = "q8_0", block_scales, panels}
// CHECK-LABEL: func @q8_0_projection
func.func @q8_0_projection(%x: tensor<4x64xf32>, %b: tensor<40xf32>) -> tensor<4x40xf32> {
  %q = tfm.weight @wo.quants : tensor<3x2x32x16xi8>
  %d = tfm.weight @wo.scales : tensor<3x2x16xf16>
  // CHECK: tfm.quantized_linear %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {format = "q8_0", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16>, tensor<40xf32> -> tensor<4x40xf32>
  %y = tfm.quantized_linear %x, %q, %d, %b {format = "q8_0", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16>, tensor<40xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// q8_0x4 panels: Q8_0 with four columns of a row in each i32 lane.
// CHECK: tfm.global_weight @wk.quants : tensor<3x2x8x16xi32> {block_quant = "q8_0x4", panels}
tfm.global_weight @wk.quants : tensor<3x2x8x16xi32> {block_quant = "q8_0x4", panels}
// CHECK: tfm.global_weight @wk.scales : tensor<3x2x16xf16> {block_quant = "q8_0x4", block_scales, panels}
tfm.global_weight @wk.scales : tensor<3x2x16xf16> {block_quant = "q8_0x4", block_scales, panels}
// CHECK-LABEL: func @q8_0x4_projection
func.func @q8_0x4_projection(%x: tensor<4x64xf32>) -> tensor<4x40xf32> {
  %q = tfm.weight @wk.quants : tensor<3x2x8x16xi32>
  %d = tfm.weight @wk.scales : tensor<3x2x16xf16>
  // CHECK: tfm.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {format = "q8_0x4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  %y = tfm.quantized_linear %x, %q, %d {format = "q8_0x4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// q4_0x4 panels: Q4_0 with four bytes (eight values) of a row in each i32
// lane.
// CHECK: tfm.global_weight @wv.quants : tensor<3x2x4x16xi32> {block_quant = "q4_0x4", panels}
tfm.global_weight @wv.quants : tensor<3x2x4x16xi32> {block_quant = "q4_0x4", panels}
// CHECK: tfm.global_weight @wv.scales : tensor<3x2x16xf16> {block_quant = "q4_0x4", block_scales, panels}
tfm.global_weight @wv.scales : tensor<3x2x16xf16> {block_quant = "q4_0x4", block_scales, panels}
// CHECK-LABEL: func @q4_0x4_projection
func.func @q4_0x4_projection(%x: tensor<4x64xf32>) -> tensor<4x40xf32> {
  %q = tfm.weight @wv.quants : tensor<3x2x4x16xi32>
  %d = tfm.weight @wv.scales : tensor<3x2x16xf16>
  // CHECK: tfm.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {format = "q4_0x4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  %y = tfm.quantized_linear %x, %q, %d {format = "q4_0x4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// Q4_0 panels hold two values a byte: 16 bytes per block and row.
// CHECK: tfm.global_weight @w1.quants : tensor<2x3x16x16xi8> {block_quant = "q4_0", panels, stacked = ["w1", "w3"]}
tfm.global_weight @w1.quants : tensor<2x3x16x16xi8> {block_quant = "q4_0", panels, stacked = ["w1", "w3"]}
// CHECK-LABEL: func @q4_0_projection
func.func @q4_0_projection(%x: tensor<1x96xf32>, %q: tensor<2x3x16x16xi8>, %d: tensor<2x3x16xf16>) -> tensor<1x32xf32> {
  // CHECK: tfm.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {format = "q4_0", out_features = 32 : i64} : tensor<1x96xf32>, tensor<2x3x16x16xi8>, tensor<2x3x16xf16> -> tensor<1x32xf32>
  %y = tfm.quantized_linear %x, %q, %d {format = "q4_0", out_features = 32 : i64} : tensor<1x96xf32>, tensor<2x3x16x16xi8>, tensor<2x3x16xf16> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// kquant panels: the k-quants unpacked, one i8 quant a value, f32 scales
// and minimums per block of 16 (or 32) values.
// CHECK: tfm.global_weight @wq.quants : tensor<1x16x16x16xi8> {block_quant = "kquant", panels}
tfm.global_weight @wq.quants : tensor<1x16x16x16xi8> {block_quant = "kquant", panels}
// CHECK: tfm.global_weight @wq.scales : tensor<1x16x16xf32> {block_quant = "kquant", block_scales, panels}
tfm.global_weight @wq.scales : tensor<1x16x16xf32> {block_quant = "kquant", block_scales, panels}
// CHECK: tfm.global_weight @wq.mins : tensor<1x16x16xf32> {block_mins, block_quant = "kquant", panels}
tfm.global_weight @wq.mins : tensor<1x16x16xf32> {block_mins, block_quant = "kquant", panels}
// CHECK-LABEL: func @kquant_projection
func.func @kquant_projection(%x: tensor<2x256xf32>, %b: tensor<16xf32>) -> tensor<2x16xf32> {
  %q = tfm.weight @wq.quants : tensor<1x16x16x16xi8>
  %d = tfm.weight @wq.scales : tensor<1x16x16xf32>
  %m = tfm.weight @wq.mins : tensor<1x16x16xf32>
  // CHECK: tfm.quantized_linear %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mins(%{{.*}} : tensor<1x16x16xf32>) {format = "kquant", out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  %y = tfm.quantized_linear %x, %q, %d, %b mins(%m : tensor<1x16x16xf32>) {format = "kquant", out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// kquant4 panels: Q4_K's nibbles two a byte as Q4_0's (column i low,
// column 16 + i high), f32 scales and minimums per block of 32.
// CHECK: tfm.global_weight @wo.quants : tensor<1x8x16x16xi8> {block_quant = "kquant4", panels}
tfm.global_weight @wo.quants : tensor<1x8x16x16xi8> {block_quant = "kquant4", panels}
// CHECK-LABEL: func @kquant4_projection
func.func @kquant4_projection(%x: tensor<2x256xf32>, %q: tensor<1x8x16x16xi8>, %d: tensor<1x8x16xf32>, %m: tensor<1x8x16xf32>) -> tensor<2x16xf32> {
  // CHECK: tfm.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} mins(%{{.*}} : tensor<1x8x16xf32>) {format = "kquant4", out_features = 16 : i64}
  %y = tfm.quantized_linear %x, %q, %d mins(%m : tensor<1x8x16xf32>) {format = "kquant4", out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x8x16x16xi8>, tensor<1x8x16xf32> -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// A Q6_K matrix's minimums are all zero: kquant without mins.
// CHECK-LABEL: func @kquant_without_mins
func.func @kquant_without_mins(%x: tensor<2x256xf32>, %q: tensor<1x16x16x16xi8>, %d: tensor<1x16x16xf32>) -> tensor<2x16xf32> {
  // CHECK: tfm.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {format = "kquant", out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32> -> tensor<2x16xf32>
  %y = tfm.quantized_linear %x, %q, %d {format = "kquant", out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32> -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
