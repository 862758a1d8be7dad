// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config -tfm-cpu-pack-weights -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config=weights=f16 -tfm-cpu-pack-weights -split-input-file | FileCheck %s --check-prefix=F16
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config=weights=bf16 -tfm-cpu-pack-weights -split-input-file | FileCheck %s --check-prefix=BF16

// Without a weight type the panels keep the matrix's element type: a bf16
// matrix gives bf16 panels, which the packed projection widens as it reads.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @w.panels : tensor<1x16x16xbf16> {layout = #tfm_cpu.panels<bf16>, stacked = ["w"]}
// CHECK: tfm_cpu.packed_linear %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = bf16, {{.*}}>, out_features = 8 : i64} : tensor<4x16xf32>, tensor<1x16x16xbf16> -> tensor<4x8xf32>
// F16-LABEL: module
// F16: tfm.global_weight @w.panels : tensor<1x16x16xf16> {layout = #tfm_cpu.panels<f16>, stacked = ["w"]}
tfm.global_weight @w : tensor<8x16xbf16>
func.func @bf16_weight(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %w = tfm.weight @w : tensor<8x16xbf16>
  %y = tfm.linear %x, %w : tensor<4x16xf32>, tensor<8x16xbf16> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A weight type converts f32 matrices; a tied table read by tfm.embedding
// is read from the head's panels, f32 or converted (rounded, as a GGUF
// file's 16-bit token table would be), and the table goes.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @table.panels : tensor<1x4x16xf32>
// CHECK-NOT: tfm.global_weight @table :
// CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} {layout = #tfm_cpu.panels<f32>, vocab = 16 : i64} : tensor<2xi32>, tensor<1x4x16xf32> -> tensor<2x4xf32>
// F16-LABEL: module
// F16: tfm.global_weight @table.panels : tensor<1x4x16xf16> {layout = #tfm_cpu.panels<f16>, stacked = ["table"]}
// F16-NOT: tfm.global_weight @table :
// F16: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} {layout = #tfm_cpu.panels<f16>, vocab = 16 : i64} : tensor<2xi32>, tensor<1x4x16xf16> -> tensor<2x4xf32>
// BF16: tfm.global_weight @table.panels : tensor<1x4x16xbf16> {layout = #tfm_cpu.panels<bf16>, stacked = ["table"]}
// BF16-NOT: tfm.global_weight @table :
// BF16: tfm_cpu.panel_embedding {{.*}}#tfm_cpu.panels<bf16>
tfm.global_weight @table : tensor<16x4xf32>
func.func @tied_head(%tokens: tensor<2xi32>) -> tensor<2x16xf32> {
  %t = tfm.weight @table : tensor<16x4xf32>
  %x = tfm.embedding %tokens, %t : tensor<2xi32>, tensor<16x4xf32> -> tensor<2x4xf32>
  %y = tfm.lm_head %x, %t : tensor<2x4xf32>, tensor<16x4xf32> -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
