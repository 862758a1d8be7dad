// RUN: tfmc-opt %s -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -split-input-file | tfmc-opt -split-input-file | FileCheck %s

// Value panels: [panels, columns, width] of the panels' element type.
// CHECK-LABEL: tfm.global_weight @head.panels : tensor<3x8x16xf32> {layout = #tfm_cpu.panels<f32>, stacked = ["head"]}
tfm.global_weight @head.panels : tensor<3x8x16xf32> {stacked = ["head"], layout = #tfm_cpu.panels<f32>}
// CHECK-LABEL: func @packed_projections
func.func @packed_projections(%x: tensor<4x8xf32>, %b: tensor<40xf32>) -> tensor<4x40xf32> {
  // CHECK: %[[W:.*]] = tfm.weight @head.panels : tensor<3x8x16xf32>
  %w = tfm.weight @head.panels : tensor<3x8x16xf32>
  // CHECK: tfm_cpu.packed_linear %{{.*}}, %[[W]] {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x8xf32>, tensor<3x8x16xf32> -> tensor<4x40xf32>
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x8xf32>, tensor<3x8x16xf32> -> tensor<4x40xf32>
  // CHECK: tfm_cpu.packed_linear %{{.*}}, %[[W]], %{{.*}} {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x8xf32>, tensor<3x8x16xf32>, tensor<40xf32> -> tensor<4x40xf32>
  %z = tfm_cpu.packed_linear %x, %w, %b {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x8xf32>, tensor<3x8x16xf32>, tensor<40xf32> -> tensor<4x40xf32>
  %s = tfm.add %y, %z : tensor<4x40xf32>
  return %s : tensor<4x40xf32>
}

// -----

// Whole zero panels past the outputs (tfm-cpu-pack-weights rounding the panel
// count up) are allowed.
// CHECK-LABEL: func @packed_padding_panels
func.func @packed_padding_panels(%x: tensor<4x8xf32>, %w: tensor<4x8x16xf32>) -> tensor<4x20xf32> {
  // CHECK: tfm_cpu.packed_linear %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 20 : i64} : tensor<4x8xf32>, tensor<4x8x16xf32> -> tensor<4x20xf32>
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 20 : i64} : tensor<4x8xf32>, tensor<4x8x16xf32> -> tensor<4x20xf32>
  return %y : tensor<4x20xf32>
}

// -----

// -----

// A kernel configuration on a network op (tfm-cpu-select-kernel-config):
// the defaults (f32 inputs, no dot instruction, no stream prefetch) are not
// printed.
// CHECK-LABEL: func @configured
func.func @configured(%x: tensor<4x8xf32>, %w: tensor<32x8xf32>, %q: tensor<4x64xf32>, %k: tensor<8x64xf32>, %pos: index) -> (tensor<4x32xf32>, tensor<4x64xf32>) {
  // CHECK: tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = f16, accumulators = 4>}
  %y = tfm.linear %x, %w {tfm_cpu.config = #tfm_cpu.projection<panels = f16, accumulators = 4, inputs = f32, dot = none>} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  // CHECK: tfm.attention {{.*}}tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>
  %a = tfm.attention %q, %k, %k[%pos] {num_heads = 8 : i64, num_kv_heads = 8 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>} : tensor<4x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
  return %y, %a : tensor<4x32xf32>, tensor<4x64xf32>
}

// -----

// Every choice of a projection's configuration.
// CHECK-LABEL: func @all_choices
func.func @all_choices(%x: tensor<4x64xf32>, %q: tensor<3x2x4x16xi32>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // CHECK: {config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd8, stream_distance = 16, non_temporal = true>, out_features = 40 : i64}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd8, stream_distance = 16, non_temporal = true>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// bf16 panels read with bf16 inputs, in pairs of input features.
// CHECK-LABEL: func @bf16_pairs
func.func @bf16_pairs(%x: tensor<4x8xf32>, %w: tensor<1x8x16xbf16>) -> tensor<4x16xf32> {
  // CHECK: tfm_cpu.packed_linear {{.*}}config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8, dot = vdpbf16ps>
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8, dot = vdpbf16ps>, out_features = 16 : i64} : tensor<4x8xf32>, tensor<1x8x16xbf16> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Q8_0 panels: [panels, blocks, 32, width] i8 quants and [panels, blocks,
// width] f16 scales of one matrix, read together.
// CHECK: tfm.global_weight @wo.quants : tensor<3x2x32x16xi8> {layout = #tfm_cpu.panels<q8_0>}
tfm.global_weight @wo.quants : tensor<3x2x32x16xi8> {layout = #tfm_cpu.panels<q8_0>}
// CHECK: tfm.global_weight @wo.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q8_0, scales>}
tfm.global_weight @wo.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q8_0, scales>}
// CHECK-LABEL: func @q8_0_projection
func.func @q8_0_projection(%x: tensor<4x64xf32>, %b: tensor<40xf32>) -> tensor<4x40xf32> {
  %q = tfm.weight @wo.quants : tensor<3x2x32x16xi8>
  %d = tfm.weight @wo.scales : tensor<3x2x16xf16>
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16>, tensor<40xf32> -> tensor<4x40xf32>
  %y = tfm_cpu.quantized_linear %x, %q, %d, %b {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16>, tensor<40xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// q8_0x4 panels: Q8_0 with four columns of a row in each i32 lane.
// CHECK: tfm.global_weight @wk.quants : tensor<3x2x8x16xi32> {layout = #tfm_cpu.panels<q8_0x4>}
tfm.global_weight @wk.quants : tensor<3x2x8x16xi32> {layout = #tfm_cpu.panels<q8_0x4>}
// CHECK: tfm.global_weight @wk.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q8_0x4, scales>}
tfm.global_weight @wk.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q8_0x4, scales>}
// CHECK-LABEL: func @q8_0x4_projection
func.func @q8_0x4_projection(%x: tensor<4x64xf32>) -> tensor<4x40xf32> {
  %q = tfm.weight @wk.quants : tensor<3x2x8x16xi32>
  %d = tfm.weight @wk.scales : tensor<3x2x16xf16>
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// q4_0x4 panels: Q4_0 with four bytes (eight values) of a row in each i32
// lane.
// CHECK: tfm.global_weight @wv.quants : tensor<3x2x4x16xi32> {layout = #tfm_cpu.panels<q4_0x4>}
tfm.global_weight @wv.quants : tensor<3x2x4x16xi32> {layout = #tfm_cpu.panels<q4_0x4>}
// CHECK: tfm.global_weight @wv.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q4_0x4, scales>}
tfm.global_weight @wv.scales : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<q4_0x4, scales>}
// CHECK-LABEL: func @q4_0x4_projection
func.func @q4_0x4_projection(%x: tensor<4x64xf32>) -> tensor<4x40xf32> {
  %q = tfm.weight @wv.quants : tensor<3x2x4x16xi32>
  %d = tfm.weight @wv.scales : tensor<3x2x16xf16>
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// Q4_0 panels hold two values a byte: 16 bytes per block and row.
// CHECK: tfm.global_weight @w1.quants : tensor<2x3x16x16xi8> {layout = #tfm_cpu.panels<q4_0>, stacked = ["w1", "w3"]}
tfm.global_weight @w1.quants : tensor<2x3x16x16xi8> {layout = #tfm_cpu.panels<q4_0>, stacked = ["w1", "w3"]}
// CHECK-LABEL: func @q4_0_projection
func.func @q4_0_projection(%x: tensor<1x96xf32>, %q: tensor<2x3x16x16xi8>, %d: tensor<2x3x16xf16>) -> tensor<1x32xf32> {
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = q4_0, accumulators = 8>, out_features = 32 : i64} : tensor<1x96xf32>, tensor<2x3x16x16xi8>, tensor<2x3x16xf16> -> tensor<1x32xf32>
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0, accumulators = 8>, out_features = 32 : i64} : tensor<1x96xf32>, tensor<2x3x16x16xi8>, tensor<2x3x16xf16> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// kquant panels: the k-quants unpacked, one i8 quant a value, f32 scales
// and minimums per block of 16 (or 32) values.
// CHECK: tfm.global_weight @wq.quants : tensor<1x16x16x16xi8> {layout = #tfm_cpu.panels<kquant>}
tfm.global_weight @wq.quants : tensor<1x16x16x16xi8> {layout = #tfm_cpu.panels<kquant>}
// CHECK: tfm.global_weight @wq.scales : tensor<1x16x16xf32> {layout = #tfm_cpu.panels<kquant, scales>}
tfm.global_weight @wq.scales : tensor<1x16x16xf32> {layout = #tfm_cpu.panels<kquant, scales>}
// CHECK: tfm.global_weight @wq.mins : tensor<1x16x16xf32> {layout = #tfm_cpu.panels<kquant, mins>}
tfm.global_weight @wq.mins : tensor<1x16x16xf32> {layout = #tfm_cpu.panels<kquant, mins>}
// CHECK-LABEL: func @kquant_projection
func.func @kquant_projection(%x: tensor<2x256xf32>, %b: tensor<16xf32>) -> tensor<2x16xf32> {
  %q = tfm.weight @wq.quants : tensor<1x16x16x16xi8>
  %d = tfm.weight @wq.scales : tensor<1x16x16xf32>
  %m = tfm.weight @wq.mins : tensor<1x16x16xf32>
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mins(%{{.*}} : tensor<1x16x16xf32>) {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  %y = tfm_cpu.quantized_linear %x, %q, %d, %b mins(%m : tensor<1x16x16xf32>) {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// kquant4 panels: Q4_K's nibbles two a byte as Q4_0's (column i low,
// column 16 + i high), f32 scales and minimums per block of 32.
// CHECK: tfm.global_weight @wo.quants : tensor<1x8x16x16xi8> {layout = #tfm_cpu.panels<kquant4>}
tfm.global_weight @wo.quants : tensor<1x8x16x16xi8> {layout = #tfm_cpu.panels<kquant4>}
// CHECK-LABEL: func @kquant4_projection
func.func @kquant4_projection(%x: tensor<2x256xf32>, %q: tensor<1x8x16x16xi8>, %d: tensor<1x8x16xf32>, %m: tensor<1x8x16xf32>) -> tensor<2x16xf32> {
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} mins(%{{.*}} : tensor<1x8x16xf32>) {config = #tfm_cpu.projection<panels = kquant4, accumulators = 8>, out_features = 16 : i64}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<1x8x16xf32>) {config = #tfm_cpu.projection<panels = kquant4, accumulators = 8>, out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x8x16x16xi8>, tensor<1x8x16xf32> -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// A Q6_K matrix's minimums are all zero: kquant without mins.
// CHECK-LABEL: func @kquant_without_mins
func.func @kquant_without_mins(%x: tensor<2x256xf32>, %q: tensor<1x16x16x16xi8>, %d: tensor<1x16x16xf32>) -> tensor<2x16xf32> {
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32> -> tensor<2x16xf32>
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 16 : i64} : tensor<2x256xf32>, tensor<1x16x16x16xi8>, tensor<1x16x16xf32> -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// A tied table's rows looked up in its classifier's panels: vocab rows of
// the panels' 3 * 16, its scale kept.
// CHECK-LABEL: func @panel_embedding
func.func @panel_embedding(%tokens: tensor<4xi32>, %w: tensor<3x8x16xf16>) -> tensor<4x8xf32> {
  // CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} {layout = #tfm_cpu.panels<f16>, scale = 2.000000e+00 : f32, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x16xf16> -> tensor<4x8xf32>
  %x = tfm_cpu.panel_embedding %tokens, %w {layout = #tfm_cpu.panels<f16>, vocab = 40 : i64, scale = 2.0 : f32} : tensor<4xi32>, tensor<3x8x16xf16> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

// Block formats: a row of 2 blocks of 32 features (Q4_0: 16 bytes a block;
// q4_0x4: 4 i32 quants a block) and their scales; k-quants with minimums.
// CHECK-LABEL: func @block_panel_embedding
func.func @block_panel_embedding(%tokens: tensor<4xi32>, %q4: tensor<3x2x16x16xi8>, %q4x4: tensor<3x2x4x16xi32>, %d: tensor<3x2x16xf16>, %k: tensor<3x2x16x16xi8>, %kd: tensor<3x2x16xf32>, %km: tensor<3x2x16xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
  // CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} scales %{{.*}} {layout = #tfm_cpu.panels<q4_0>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf16> -> tensor<4x64xf32>
  %x = tfm_cpu.panel_embedding %tokens, %q4 scales %d {layout = #tfm_cpu.panels<q4_0>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf16> -> tensor<4x64xf32>
  // CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} scales %{{.*}} {layout = #tfm_cpu.panels<q4_0x4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x64xf32>
  %y = tfm_cpu.panel_embedding %tokens, %q4x4 scales %d {layout = #tfm_cpu.panels<q4_0x4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x2x4x16xi32>, tensor<3x2x16xf16> -> tensor<4x64xf32>
  // CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} scales %{{.*}} mins %{{.*}} {layout = #tfm_cpu.panels<kquant4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf32>, tensor<3x2x16xf32> -> tensor<4x64xf32>
  %z = tfm_cpu.panel_embedding %tokens, %k scales %kd mins %km {layout = #tfm_cpu.panels<kquant4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf32>, tensor<3x2x16xf32> -> tensor<4x64xf32>
  return %x, %y, %z : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// kquant4x4 panels over int8 inputs: Q4_K's nibbles four bytes a lane, the
// i8 sub-block scales and minimums GGUF stores, and per super-block of 256
// each row's f32 d and dmin.
// CHECK: tfm.global_weight @wk.scales : tensor<3x8x16xi8> {layout = #tfm_cpu.panels<kquant4x4, scales>}
tfm.global_weight @wk.scales : tensor<3x8x16xi8> {layout = #tfm_cpu.panels<kquant4x4, scales>}
// CHECK: tfm.global_weight @wk.factors : tensor<3x1x2x16xf32> {layout = #tfm_cpu.panels<kquant4x4, factors>}
tfm.global_weight @wk.factors : tensor<3x1x2x16xf32> {layout = #tfm_cpu.panels<kquant4x4, factors>}
// CHECK-LABEL: func @kquant4x4_projection
func.func @kquant4x4_projection(%x: tensor<4x256xf32>, %q: tensor<3x8x4x16xi32>, %m: tensor<3x8x16xi8>) -> (tensor<4x40xf32>, tensor<4x256xf32>) {
  %d = tfm.weight @wk.scales : tensor<3x8x16xi8>
  %f = tfm.weight @wk.factors : tensor<3x1x2x16xf32>
  // CHECK: tfm_cpu.quantized_linear %{{.*}}, %{{.*}}, %{{.*}} mins(%{{.*}} : tensor<3x8x16xi8>) factors(%{{.*}} : tensor<3x1x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x256xf32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8> -> tensor<4x40xf32>
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x8x16xi8>) factors(%f : tensor<3x1x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x256xf32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8> -> tensor<4x40xf32>
  %tokens = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  // CHECK: tfm_cpu.panel_embedding %{{.*}}, %{{.*}} scales %{{.*}} mins %{{.*}} factors %{{.*}} {layout = #tfm_cpu.panels<kquant4x4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8>, tensor<3x8x16xi8>, tensor<3x1x2x16xf32> -> tensor<4x256xf32>
  %e = tfm_cpu.panel_embedding %tokens, %q scales %d mins %m factors %f {layout = #tfm_cpu.panels<kquant4x4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8>, tensor<3x8x16xi8>, tensor<3x1x2x16xf32> -> tensor<4x256xf32>
  return %y, %e : tensor<4x40xf32>, tensor<4x256xf32>
}
