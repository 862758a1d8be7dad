// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config -tfm-cpu-pack-weights -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config=weights=f32 -tfm-cpu-pack-weights -split-input-file | FileCheck %s --check-prefix=ASKED

// Without a weight type, each projection keeps the type the model file
// stores its matrix in (`stored`): Q8_0 and Q4_0 blocks, f16 and bf16 panels.
// CHECK-LABEL: module
// CHECK-DAG: tfm.global_weight @q8.quants : tensor<1x2x32x16xi8> {layout = #tfm_cpu.panels<q8_0>, stacked = ["q8"]}
// CHECK-DAG: tfm.global_weight @q4.quants : tensor<1x2x16x16xi8> {layout = #tfm_cpu.panels<q4_0>, stacked = ["q4"]}
// CHECK-DAG: tfm.global_weight @half.panels : tensor<1x64x16xf16> {layout = #tfm_cpu.panels<f16>, stacked = ["half"]}
// CHECK-DAG: tfm.global_weight @brain.panels : tensor<1x64x16xbf16> {layout = #tfm_cpu.panels<bf16>, stacked = ["brain"]}
// CHECK-LABEL: func.func @stored_types
// CHECK: tfm_cpu.quantized_linear {{.*}} {config = #tfm_cpu.projection<panels = q8_0, {{.*}}>, out_features = 16 : i64}
// CHECK: tfm_cpu.quantized_linear {{.*}} {config = #tfm_cpu.projection<panels = q4_0, {{.*}}>, out_features = 16 : i64}
// CHECK: tfm_cpu.packed_linear {{.*}} : tensor<4x64xf32>, tensor<1x64x16xf16> -> tensor<4x16xf32>
// CHECK: tfm_cpu.packed_linear {{.*}} : tensor<4x64xf32>, tensor<1x64x16xbf16> -> tensor<4x16xf32>
// A weight type asked for applies to every projection, whatever is stored.
// ASKED-LABEL: func.func @stored_types
// ASKED-NOT: quants
// ASKED-COUNT-4: tfm_cpu.packed_linear {{.*}} : tensor<4x64xf32>, tensor<1x64x16xf32> -> tensor<4x16xf32>
tfm.global_weight @q8 : tensor<16x64xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @q4 : tensor<16x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @half : tensor<16x64xf32> {stored = #tfm.stored<f16>}
tfm.global_weight @brain : tensor<16x64xf32> {stored = #tfm.stored<bf16>}
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

// The k-quants keep their values in the kquant layouts: a Q4_K matrix as
// kquant4, its nibbles two a byte in blocks of 32 (its sub-blocks), f32
// scales and minimums. An asked weight type converts them like any other
// matrix.
// ASKED-LABEL: func.func @k_quant
// ASKED: tfm_cpu.packed_linear {{.*}} : tensor<4x256xf32>, tensor<1x256x16xf32> -> tensor<4x16xf32>
// CHECK-LABEL: module
// CHECK: tfm.global_weight @k.quants : tensor<1x8x16x16xi8> {layout = #tfm_cpu.panels<kquant4>, stacked = ["k"]}
// CHECK: tfm.global_weight @k.scales : tensor<1x8x16xf32> {layout = #tfm_cpu.panels<kquant4, scales>, stacked = ["k"]}
// CHECK: tfm.global_weight @k.mins : tensor<1x8x16xf32> {layout = #tfm_cpu.panels<kquant4, mins>, stacked = ["k"]}
// CHECK-LABEL: func.func @k_quant
// CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} mins(%{{.*}} : tensor<1x8x16xf32>) {config = #tfm_cpu.projection<panels = kquant4, {{.*}}>, out_features = 16 : i64} : tensor<4x256xf32>, tensor<1x8x16x16xi8>, tensor<1x8x16xf32> -> tensor<4x16xf32>
tfm.global_weight @k : tensor<16x256xf32> {stored = #tfm.stored<q4_k>}
func.func @k_quant(%x: tensor<4x256xf32>) -> tensor<4x16xf32> {
  %w = tfm.weight @k : tensor<16x256xf32>
  %y = tfm.linear %x, %w : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Q5_K takes a byte a value in blocks of 32 (kquant); Q6_K's scales cover
// 16 values, and so do those of a stack of k-quants of different kinds
// (#tfm.stored<q4_k, q6_k>, a Q4_K_M file's Q/K/V). Q6_K's minimums are all
// zero: a Q6_K matrix has none.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @v.quants : tensor<1x16x16x16xi8> {layout = #tfm_cpu.panels<kquant>, stacked = ["v"]}
// CHECK-NEXT: tfm.global_weight @v.scales : tensor<1x16x16xf32> {layout = #tfm_cpu.panels<kquant, scales>, stacked = ["v"]}
// CHECK-NOT: @v.mins
// CHECK: tfm.global_weight @qkv.quants : tensor<2x16x16x16xi8> {layout = #tfm_cpu.panels<kquant>, stacked = ["q", "k"]}
// CHECK: tfm.global_weight @qkv.mins : tensor<2x16x16xf32> {layout = #tfm_cpu.panels<kquant, mins>, stacked = ["q", "k"]}
// CHECK: tfm.global_weight @five.quants : tensor<1x8x32x16xi8> {layout = #tfm_cpu.panels<kquant>, stacked = ["five"]}
// CHECK: tfm.global_weight @five.mins : tensor<1x8x16xf32> {layout = #tfm_cpu.panels<kquant, mins>, stacked = ["five"]}
// CHECK-LABEL: func.func @k_quant_16
// CHECK: tfm_cpu.quantized_linear %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} {config = #tfm_cpu.projection<panels = kquant, {{.*}}>, out_features = 16 : i64}
// CHECK: tfm_cpu.quantized_linear {{.*}} mins({{.*}}) {config = #tfm_cpu.projection<panels = kquant, {{.*}}>, out_features = 32 : i64}
// CHECK: tfm_cpu.quantized_linear {{.*}} mins({{.*}}) {config = #tfm_cpu.projection<panels = kquant, {{.*}}>, out_features = 16 : i64}
tfm.global_weight @v : tensor<16x256xf32> {stored = #tfm.stored<q6_k>}
tfm.global_weight @qkv : tensor<32x256xf32> {stacked = ["q", "k"], stored = #tfm.stored<q4_k, q6_k>}
tfm.global_weight @five : tensor<16x256xf32> {stored = #tfm.stored<q5_k>}
func.func @k_quant_16(%x: tensor<4x256xf32>) -> (tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x16xf32>) {
  %v = tfm.weight @v : tensor<16x256xf32>
  %qkv = tfm.weight @qkv : tensor<32x256xf32>
  %five = tfm.weight @five : tensor<16x256xf32>
  %y = tfm.linear %x, %v : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  %z = tfm.linear %x, %qkv : tensor<4x256xf32>, tensor<32x256xf32> -> tensor<4x32xf32>
  %w = tfm.linear %x, %five : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  return %y, %z, %w : tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x16xf32>
}

// -----

// A tied table kept as stored (f16, Q8_0 blocks, Q6_K's kquant, Q4_K's
// kquant4 with minimums): the panels hold the table's values exactly, so
// each lookup reads them, dequantized, and no table is left. Converted to
// f32 panels, the lookup reads those.
// CHECK-LABEL: module
// CHECK-NOT: tfm.global_weight @{{[a-z0-9_]+}} :
// CHECK-LABEL: func.func @tied_stored
// CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} {layout = #tfm_cpu.panels<f16>, vocab = 32 : i64} : tensor<2xi32>, tensor<2x256x16xf16> -> tensor<2x256xf32>
// CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} scales %{{.*}} {layout = #tfm_cpu.panels<q8_0>, vocab = 32 : i64} : tensor<2xi32>, tensor<2x8x32x16xi8>, tensor<2x8x16xf16> -> tensor<2x256xf32>
// CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} scales %{{.*}} {layout = #tfm_cpu.panels<kquant>, vocab = 32 : i64} : tensor<2xi32>, tensor<2x16x16x16xi8>, tensor<2x16x16xf32> -> tensor<2x256xf32>
// CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} scales %{{.*}} mins %{{.*}} {layout = #tfm_cpu.panels<kquant4>, vocab = 32 : i64} : tensor<2xi32>, tensor<2x8x16x16xi8>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x256xf32>
// CHECK-NOT: tfm.embedding
// ASKED-LABEL: func.func @tied_stored
// ASKED-COUNT-4: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} {layout = #tfm_cpu.panels<f32>, vocab = 32 : i64} : tensor<2xi32>, tensor<2x256x16xf32> -> tensor<2x256xf32>
tfm.global_weight @tied_half : tensor<32x256xf32> {stored = #tfm.stored<f16>}
tfm.global_weight @tied_q8 : tensor<32x256xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @tied_q6k : tensor<32x256xf32> {stored = #tfm.stored<q6_k>}
tfm.global_weight @tied_q4k : tensor<32x256xf32> {stored = #tfm.stored<q4_k>}
func.func @tied_stored(%tokens: tensor<2xi32>) -> (tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>) {
  %th = tfm.weight @tied_half : tensor<32x256xf32>
  %t8 = tfm.weight @tied_q8 : tensor<32x256xf32>
  %t6 = tfm.weight @tied_q6k : tensor<32x256xf32>
  %t4 = tfm.weight @tied_q4k : tensor<32x256xf32>
  %xh = tfm.embedding %tokens, %th : tensor<2xi32>, tensor<32x256xf32> -> tensor<2x256xf32>
  %x8 = tfm.embedding %tokens, %t8 : tensor<2xi32>, tensor<32x256xf32> -> tensor<2x256xf32>
  %x6 = tfm.embedding %tokens, %t6 : tensor<2xi32>, tensor<32x256xf32> -> tensor<2x256xf32>
  %x4 = tfm.embedding %tokens, %t4 : tensor<2xi32>, tensor<32x256xf32> -> tensor<2x256xf32>
  %yh = tfm.lm_head %xh, %th : tensor<2x256xf32>, tensor<32x256xf32> -> tensor<2x32xf32>
  %y8 = tfm.lm_head %x8, %t8 : tensor<2x256xf32>, tensor<32x256xf32> -> tensor<2x32xf32>
  %y6 = tfm.lm_head %x6, %t6 : tensor<2x256xf32>, tensor<32x256xf32> -> tensor<2x32xf32>
  %y4 = tfm.lm_head %x4, %t4 : tensor<2x256xf32>, tensor<32x256xf32> -> tensor<2x32xf32>
  return %yh, %y8, %y6, %y4 : tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x32xf32>
}
