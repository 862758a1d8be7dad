// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config -tfm-cpu-pack-weights -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config -tfm-cpu-pack-weights=panel-width=8 -split-input-file | FileCheck %s --check-prefix=WIDTH8
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config -tfm-cpu-pack-weights="panel-width=1 panel-group=2" -split-input-file | FileCheck %s --check-prefix=GROUP

// A linear reads its weight as 16-row column panels (the f32 panels its
// kernel configuration chose); the [32, 4] matrix is
// no longer read, so only the panels are declared.
// CHECK-LABEL: module
// CHECK-NOT: tfm.global_weight @wq :
// CHECK: tfm.global_weight @wq.panels : tensor<2x4x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["wq"]}
// WIDTH8: tfm.global_weight @wq.panels : tensor<4x4x8xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["wq"]}
tfm.global_weight @wq : tensor<32x4xf32>
// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<2x4xf32>) -> tensor<2x32xf32> {
  // CHECK: %[[W:.*]] = tfm.weight @wq.panels : tensor<2x4x16xf32>
  // CHECK: tfm_cpu.packed_linear %{{.*}}, %[[W]] {config = #tfm_cpu.projection<panels = f32, {{.*}}>, out_features = 32 : i64} : tensor<2x4xf32>, tensor<2x4x16xf32> -> tensor<2x32xf32>
  %w = tfm.weight @wq : tensor<32x4xf32>
  %y = tfm.linear %x, %w : tensor<2x4xf32>, tensor<32x4xf32> -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

// -----

// Outputs that do not fill the last panel are padded (20 rows: 2 panels);
// the bias stays as it is.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @fc.panels : tensor<2x4x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["fc"]}
tfm.global_weight @fc : tensor<20x4xf32>
tfm.global_weight @fc_bias : tensor<20xf32>
// CHECK-LABEL: func.func @padded_with_bias
func.func @padded_with_bias(%x: tensor<2x4xf32>) -> tensor<2x20xf32> {
  // CHECK: %[[B:.*]] = tfm.weight @fc_bias : tensor<20xf32>
  // CHECK: %[[W:.*]] = tfm.weight @fc.panels : tensor<2x4x16xf32>
  // CHECK: tfm_cpu.packed_linear %{{.*}}, %[[W]], %[[B]] {config = #tfm_cpu.projection<panels = f32, {{.*}}>, out_features = 20 : i64}
  %w = tfm.weight @fc : tensor<20x4xf32>
  %b = tfm.weight @fc_bias : tensor<20xf32>
  %y = tfm.linear %x, %w, %b : tensor<2x4xf32>, tensor<20x4xf32>, tensor<20xf32> -> tensor<2x20xf32>
  return %y : tensor<2x20xf32>
}

// -----

// -----

// A head with a bias (Phi-2) keeps it on its packed product.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @head.panels : tensor<2x4x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["head"]}
tfm.global_weight @head : tensor<20x4xf32>
tfm.global_weight @head_bias : tensor<20xf32>
// CHECK-LABEL: func.func @head_with_bias
func.func @head_with_bias(%x: tensor<2x4xf32>) -> tensor<2x20xf32> {
  // CHECK: %[[B:.*]] = tfm.weight @head_bias : tensor<20xf32>
  // CHECK: %[[W:.*]] = tfm.weight @head.panels : tensor<2x4x16xf32>
  // CHECK: tfm_cpu.packed_linear %{{.*}}, %[[W]], %[[B]] {config = #tfm_cpu.projection<panels = f32, {{.*}}>, out_features = 20 : i64}
  %w = tfm.weight @head : tensor<20x4xf32>
  %b = tfm.weight @head_bias : tensor<20xf32>
  %y = tfm.lm_head %x, %w, %b : tensor<2x4xf32>, tensor<20x4xf32>, tensor<20xf32> -> tensor<2x20xf32>
  return %y : tensor<2x20xf32>
}

// -----

// Tied embeddings: the lm_head reads panels of the table and the embedding
// looks its rows up in them (its scale kept), so the table is no longer
// read and the blob holds the matrix once.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @tok_embeddings.panels : tensor<4x4x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["tok_embeddings"]}
// CHECK-NOT: tfm.global_weight @tok_embeddings :
tfm.global_weight @tok_embeddings : tensor<64x4xf32>
// CHECK-LABEL: func.func @tied_head
func.func @tied_head(%tokens: tensor<2xi32>) -> tensor<2x64xf32> {
  // CHECK: %[[PANELS:.*]] = tfm.weight @tok_embeddings.panels : tensor<4x4x16xf32>
  // CHECK: %[[X:.*]] = tfm_cpu.panel_embedding %{{.*}}, %[[PANELS]] {layout = #tfm_cpu.panels<f32>, scale = 2.000000e+00 : f32, vocab = 64 : i64} : tensor<2xi32>, tensor<4x4x16xf32> -> tensor<2x4xf32>
  // CHECK: tfm_cpu.packed_linear %[[X]], %{{.*}} {config = #tfm_cpu.projection<panels = f32, {{.*}}>, out_features = 64 : i64} : tensor<2x4xf32>, tensor<4x4x16xf32> -> tensor<2x64xf32>
  // CHECK-NOT: tfm.embedding
  %table = tfm.weight @tok_embeddings : tensor<64x4xf32>
  %x = tfm.embedding %tokens, %table {scale = 2.0 : f32} : tensor<2xi32>, tensor<64x4xf32> -> tensor<2x4xf32>
  %logits = tfm.lm_head %x, %table : tensor<2x4xf32>, tensor<64x4xf32> -> tensor<2x64xf32>
  return %logits : tensor<2x64xf32>
}

// -----

// An embedding whose table no projection packs reads the table as before.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @untied_table : tensor<64x4xf32>
tfm.global_weight @untied_table : tensor<64x4xf32>
tfm.global_weight @untied_head : tensor<64x4xf32>
// CHECK-LABEL: func.func @untied
func.func @untied(%tokens: tensor<2xi32>) -> tensor<2x64xf32> {
  // CHECK: tfm.embedding %{{.*}}, %{{.*}} : tensor<2xi32>, tensor<64x4xf32>
  // CHECK: tfm_cpu.packed_linear
  %table = tfm.weight @untied_table : tensor<64x4xf32>
  %head = tfm.weight @untied_head : tensor<64x4xf32>
  %x = tfm.embedding %tokens, %table : tensor<2xi32>, tensor<64x4xf32> -> tensor<2x4xf32>
  %logits = tfm.lm_head %x, %head : tensor<2x4xf32>, tensor<64x4xf32> -> tensor<2x64xf32>
  return %logits : tensor<2x64xf32>
}

// -----

// A weight stacked at compile time keeps its model tensors: the panels are
// built from the same stack.
// CHECK-LABEL: module
// CHECK: tfm.global_weight @wqkv.panels : tensor<3x4x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["wq", "wk", "wv"]}
tfm.global_weight @wqkv : tensor<48x4xf32> {stacked = ["wq", "wk", "wv"]}
// CHECK-LABEL: func.func @stacked
func.func @stacked(%x: tensor<1x4xf32>) -> tensor<1x48xf32> {
  // CHECK: tfm_cpu.packed_linear
  %w = tfm.weight @wqkv : tensor<48x4xf32>
  %y = tfm.linear %x, %w : tensor<1x4xf32>, tensor<48x4xf32> -> tensor<1x48xf32>
  return %y : tensor<1x48xf32>
}

// -----

// The panel count is rounded up to a multiple of panel-group with zero
// panels when that adds at most 1/64 of the matrix: 129 one-row panels
// become 130 in groups of 2; 63 would grow by more than 1/64 and stay odd.
// With the default 16-row panels in groups of 8, 9 and 4 panels stay as
// they are (7 and 4 padding panels would cost far more than 1/64).
// CHECK-LABEL: module
// CHECK: tfm.global_weight @wide.panels : tensor<9x2x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["wide"]}
// CHECK: tfm.global_weight @narrow.panels : tensor<4x2x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["narrow"]}
// GROUP: tfm.global_weight @wide.panels : tensor<130x2x1xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["wide"]}
// GROUP: tfm.global_weight @narrow.panels : tensor<63x2x1xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["narrow"]}
tfm.global_weight @wide : tensor<129x2xf32>
tfm.global_weight @narrow : tensor<63x2xf32>
// CHECK-LABEL: func.func @panel_groups
func.func @panel_groups(%x: tensor<1x2xf32>) -> (tensor<1x129xf32>, tensor<1x63xf32>) {
  // GROUP: tfm_cpu.packed_linear %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = f32, {{.*}}>, out_features = 129 : i64} : tensor<1x2xf32>, tensor<130x2x1xf32> -> tensor<1x129xf32>
  // GROUP: tfm_cpu.packed_linear %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = f32, {{.*}}>, out_features = 63 : i64} : tensor<1x2xf32>, tensor<63x2x1xf32> -> tensor<1x63xf32>
  %w = tfm.weight @wide : tensor<129x2xf32>
  %n = tfm.weight @narrow : tensor<63x2xf32>
  %y = tfm.linear %x, %w : tensor<1x2xf32>, tensor<129x2xf32> -> tensor<1x129xf32>
  %z = tfm.linear %x, %n : tensor<1x2xf32>, tensor<63x2xf32> -> tensor<1x63xf32>
  return %y, %z : tensor<1x129xf32>, tensor<1x63xf32>
}
