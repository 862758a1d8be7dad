// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config="weights=q8_0 int8-inputs=false" -tfm-cpu-pack-weights -split-input-file | FileCheck %s --check-prefix=Q8
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config="weights=q4_0 int8-inputs=false" -tfm-cpu-pack-weights -split-input-file | FileCheck %s --check-prefixes=Q4,Q4-F32
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config="weights=q8_0 int8-inputs" -tfm-cpu-pack-weights -split-input-file | FileCheck %s --check-prefix=QUADS
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config="weights=q4_0 int8-inputs" -tfm-cpu-pack-weights -split-input-file | FileCheck %s --check-prefixes=Q4,Q4-INT8

// A projection of 64 input features (two blocks of 32) becomes a
// tfm_cpu.quantized_linear over the matrix's quants and scales; the bias stays
// f32.
// Q8-LABEL: module
// Q8: tfm.global_weight @w.quants : tensor<3x2x32x16xi8> {layout = #tfm_cpu.panels<q8_0>, stacked = ["w"]}
// Q8: tfm.global_weight @w.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q8_0, scales>, stacked = ["w"]}
// Q8-NOT: tfm.global_weight @w :
// Q8: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = q8_0, {{.*}}>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16>, tensor<40xf32> -> tensor<4x40xf32>
// Q4-LABEL: module
// Q4: tfm.global_weight @w.quants : tensor<3x2x16x16xi8> {layout = #tfm_cpu.panels<q4_0>, stacked = ["w"]}
// Q4: tfm.global_weight @w.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q4_0, scales>, stacked = ["w"]}
// Q4: tfm_cpu.quantized_linear {{.*}} {config = #tfm_cpu.projection<panels = q4_0, {{.*}}>, out_features = 40 : i64}
// With int8-inputs, Q8_0 panels are q8_0x4: the quants as i32 quads, four
// columns of a row a lane (Q4_0 keeps its panels without a VNNI target).
// QUADS-LABEL: module
// QUADS: tfm.global_weight @w.quants : tensor<3x2x8x16xi32> {layout = #tfm_cpu.panels<q8_0x4>, stacked = ["w"]}
// QUADS: tfm.global_weight @w.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q8_0x4, scales>, stacked = ["w"]}
// QUADS: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = q8_0x4, {{.*}}>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xf16>, tensor<40xf32> -> tensor<4x40xf32>
tfm.global_weight @w : tensor<40x64xf32>
tfm.global_weight @b : tensor<40xf32>
func.func @projection(%x: tensor<4x64xf32>) -> tensor<4x40xf32> {
  %w = tfm.weight @w : tensor<40x64xf32>
  %b = tfm.weight @b : tensor<40xf32>
  %y = tfm.linear %x, %w, %b : tensor<4x64xf32>, tensor<40x64xf32>, tensor<40xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// Rows of 48 are not whole blocks of 32: the matrix keeps f32 panels
// (docs/weight-types.md).
// Q8-LABEL: module
// Q8-NOT: quants
// Q8: tfm.global_weight @down.panels : tensor<1x48x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["down"]}
// Q8: tfm_cpu.packed_linear %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = f32, {{.*}}>, out_features = 16 : i64} : tensor<4x48xf32>, tensor<1x48x16xf32> -> tensor<4x16xf32>
// Q4-LABEL: module
// Q4: tfm.global_weight @down.panels : tensor<1x48x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["down"]}
// QUADS-LABEL: module
// QUADS-NOT: quants
// QUADS: tfm.global_weight @down.panels : tensor<1x48x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["down"]}
tfm.global_weight @down : tensor<16x48xf32>
func.func @partial_blocks(%x: tensor<4x48xf32>) -> tensor<4x16xf32> {
  %d = tfm.weight @down : tensor<16x48xf32>
  %h = tfm.linear %x, %d : tensor<4x48xf32>, tensor<16x48xf32> -> tensor<4x16xf32>
  return %h : tensor<4x16xf32>
}

// -----

// With int8-inputs and a target that has a VNNI byte dot product (where
// that is the default: tfm-cpu-select-kernel-config.mlir), Q4_0 panels are
// q4_0x4: four bytes of a row a lane. With int8-inputs=false they stay q4_0
// there too.
// Q4-LABEL: module
// Q4-INT8: tfm.global_weight @w.quants : tensor<3x2x4x16xi32> {layout = #tfm_cpu.panels<q4_0x4>, stacked = ["w"]}
// Q4-INT8: tfm.global_weight @w.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q4_0x4, scales>, stacked = ["w"]}
// Q4-INT8: tfm_cpu.quantized_linear {{.*}} {config = #tfm_cpu.projection<panels = q4_0x4, {{.*}}>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
// Q4-F32: tfm_cpu.quantized_linear {{.*}} {config = #tfm_cpu.projection<panels = q4_0, {{.*}}>, out_features = 40 : i64}
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "icelake-server", features = "+avx,+avx2,+avx512f,+avx512bw,+avx512vnni", vector_bits = 512, vector_registers = 32>>} {
tfm.global_weight @w : tensor<40x64xf32>
func.func @vnni(%x: tensor<4x64xf32>) -> tensor<4x40xf32> {
  %w = tfm.weight @w : tensor<40x64xf32>
  %y = tfm.linear %x, %w : tensor<4x64xf32>, tensor<40x64xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}
}
