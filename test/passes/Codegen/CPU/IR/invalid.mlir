// RUN: tfmc-opt %s -split-input-file -verify-diagnostics

// The panels' formats are compiler/weights' (PanelLayout.td).
// expected-error @+2 {{expected one of [f32, f16, bf16, q8_0, q4_0, q8_0x4, q4_0x4, kquant, kquant4, kquantx4, kquant4x4] for what the panels of a projection's matrix hold, got: q5_k}}
// expected-error @+1 {{failed to parse TfmCpu_PanelsAttr parameter 'format'}}
tfm.global_weight @w : tensor<3x2x32x16xi8> {layout = #tfm_cpu.panels<q5_k>}

// -----

// A layout is a WeightLayoutAttrInterface: no other attribute lays a weight
// out.
// expected-error @+1 {{attribute 'layout' failed to satisfy constraint}}
tfm.global_weight @w : tensor<3x2x32x16xi8> {layout = #tfm_cpu.projection<panels = q8_0, accumulators = 8>}

// -----

// Value panels are [panels, columns, width] of their element type.
// expected-error @+1 {{f16 panels are [panels, columns, width] 'f16' tensors, got 'tensor<3x8x16xf32>'}}
tfm.global_weight @w : tensor<3x8x16xf32> {layout = #tfm_cpu.panels<f16>}

// -----

// expected-error @+1 {{f32 panels are [panels, columns, width] 'f32' tensors, got 'tensor<48x8xf32>'}}
tfm.global_weight @flat : tensor<48x8xf32> {layout = #tfm_cpu.panels<f32>}

// -----

// A model tensor's stored type is not the compiler's layout.
// expected-error @+1 {{stored describes model tensors; a laid-out weight is the compiler's}}
tfm.global_weight @w.panels : tensor<1x32x16xf32> {layout = #tfm_cpu.panels<f32>, stored = #tfm.stored<q8_0>}

// -----

// A Q8_0 block is 32 bytes per row in the panels.
// expected-error @+1 {{q8_0 quants are [panels, blocks, 32, width] 'i8' tensors, got 'tensor<3x2x16x16xi8>'}}
tfm.global_weight @w : tensor<3x2x16x16xi8> {layout = #tfm_cpu.panels<q8_0>}

// -----

// expected-error @+1 {{q4_0 quants are [panels, blocks, 16, width] 'i8' tensors, got 'tensor<3x2x16x16xf32>'}}
tfm.global_weight @w : tensor<3x2x16x16xf32> {layout = #tfm_cpu.panels<q4_0>}

// -----

// q8_0x4 holds four int8 a lane: i32 quants.
// expected-error @+1 {{q8_0x4 quants are [panels, blocks, 8, width] 'i32' tensors, got 'tensor<3x2x32x16xi8>'}}
tfm.global_weight @w : tensor<3x2x32x16xi8> {layout = #tfm_cpu.panels<q8_0x4>}

// -----

// q4_0x4 holds a block's 16 bytes four a lane: 4 lanes per block and row.
// expected-error @+1 {{q4_0x4 quants are [panels, blocks, 4, width] 'i32' tensors, got 'tensor<3x2x8x16xi32>'}}
tfm.global_weight @w : tensor<3x2x8x16xi32> {layout = #tfm_cpu.panels<q4_0x4>}

// -----

// expected-error @+1 {{q8_0 block scales are [panels, blocks, width] 'f16' tensors, got 'tensor<3x2x16xf32>'}}
tfm.global_weight @w : tensor<3x2x16xf32> {layout = #tfm_cpu.panels<q8_0, scales>}

// -----

// Value panels have no scales or minimums.
// expected-error @+1 {{f16 panels hold values: no scales}}
tfm.global_weight @w : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<f16, scales>}

// -----

// expected-error @+1 {{f32 panels hold values: no mins}}
tfm.global_weight @w : tensor<3x2x16xf32> {layout = #tfm_cpu.panels<f32, mins>}

// -----

// kquant blocks are the k-quants' sub-blocks: 16 or 32 values.
// expected-error @+1 {{kquant quants are [panels, blocks, 16 or 32, width] i8 tensors, got 'tensor<3x2x64x16xi8>'}}
tfm.global_weight @w : tensor<3x2x64x16xi8> {layout = #tfm_cpu.panels<kquant>}

// -----

// kquantx4 holds kquant's blocks of 16 or 32 values four a lane.
// expected-error @+1 {{kquantx4 quants are [panels, blocks, 4 or 8, width] i32 tensors, got 'tensor<3x2x16x16xi32>'}}
tfm.global_weight @w : tensor<3x2x16x16xi32> {layout = #tfm_cpu.panels<kquantx4>}

// -----

// kquant4x4 holds Q4_K's 16 bytes of nibble pairs a block, four a lane.
// expected-error @+1 {{kquant4x4 quants are [panels, blocks, 4, width] 'i32' tensors, got 'tensor<3x2x16x16xi8>'}}
tfm.global_weight @w : tensor<3x2x16x16xi8> {layout = #tfm_cpu.panels<kquant4x4>}

// -----

// kquant scales are f32 (the product of an f16 and a sub-block integer).
// expected-error @+1 {{kquant block scales are [panels, blocks, width] 'f32' tensors, got 'tensor<3x2x16xf16>'}}
tfm.global_weight @w : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<kquant, scales>}

// -----

// expected-error @+1 {{kquant block mins are [panels, blocks, width] 'f32' tensors, got 'tensor<3x2xf32>'}}
tfm.global_weight @w : tensor<3x2xf32> {layout = #tfm_cpu.panels<kquant, mins>}

// -----

// expected-error @+1 {{only the k-quant layouts have mins}}
tfm.global_weight @w : tensor<3x2x16xf32> {layout = #tfm_cpu.panels<q4_0, mins>}


// -----

// The configuration's panels name the block format.
func.func @format(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{reads block panels, not f32 panels}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @quants_per_block(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q4_0 quants hold 16 elements per block and row, got 32}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @quad_quants(%x: tensor<4x64xf32>, %q: tensor<3x2x8x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q8_0x4 quants are 'i32', got 'tensor<3x2x8x16xi8>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @nibble_quad_quants(%x: tensor<4x64xf32>, %q: tensor<3x2x4x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q4_0x4 quants are 'i32', got 'tensor<3x2x4x16xi8>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @nibble_quads_per_block(%x: tensor<4x64xf32>, %q: tensor<3x2x8x16xi32>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q4_0x4 quants hold 4 elements per block and row, got 8}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// The input features are whole blocks of 32.
func.func @features(%x: tensor<4x60xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{input has 60 features but the weight has 2 blocks of 32 per row}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 40 : i64} : tensor<4x60xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// One scale per panel row and block.
func.func @scales(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x1x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{scales must be [3, 2, 16] (one per panel row and block), got 'tensor<3x1x16xf16>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x1x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @too_few_panels(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x49xf32> {
  // expected-error @+1 {{out_features 49 exceeds the 48 rows of 3 panels of 16}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 49 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x49xf32>
  return %y : tensor<4x49xf32>
}

// -----

func.func @bias(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>, %b: tensor<48xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{bias has 48 elements but the layer has 40 outputs}}
  %y = tfm_cpu.quantized_linear %x, %q, %d, %b {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16>, tensor<48xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @q8_0_with_mins(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{only the k-quant layouts have mins}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant_f16_scales(%x: tensor<4x64xf32>, %q: tensor<3x4x16x16xi8>, %d: tensor<3x4x16xf16>, %m: tensor<3x4x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant scales are 'f32', got 'tensor<3x4x16xf16>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x4x16xf32>) {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x4x16x16xi8>, tensor<3x4x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant_block_length(%x: tensor<4x64xf32>, %q: tensor<3x1x64x16xi8>, %d: tensor<3x1x16xf32>, %m: tensor<3x1x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant blocks are 16 or 32 values, got 64}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x1x16xf32>) {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x1x64x16xi8>, tensor<3x1x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// Blocks of 16: 64 features are 4 blocks.
func.func @kquant_features(%x: tensor<4x64xf32>, %q: tensor<3x2x16x16xi8>, %d: tensor<3x2x16xf32>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{input has 64 features but the weight has 2 blocks of 16 per row}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant_mins_shape(%x: tensor<4x64xf32>, %q: tensor<3x4x16x16xi8>, %d: tensor<3x4x16xf32>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{mins must be [3, 4, 16] (one per panel row and block), got 'tensor<3x2x16xf32>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x4x16x16xi8>, tensor<3x4x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// kquant4 holds two values a byte, in blocks of 32 like Q4_0.
func.func @kquant4_quants(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf32>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4 quants hold 16 elements per block and row, got 32}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant4, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant4_without_mins(%x: tensor<4x64xf32>, %q: tensor<3x2x16x16xi8>, %d: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4 blocks need their mins}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = kquant4, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// kquantx4's quads of a byte a value: blocks of 16 or 32 values are 4 or 8
// quads.
func.func @kquantx4_block_length(%x: tensor<4x64xf32>, %q: tensor<3x1x16x16xi32>, %d: tensor<3x1x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquantx4 blocks are 16 or 32 values, got 64}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x1x16x16xi32>, tensor<3x1x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant4x4_without_mins(%x: tensor<4x64xf32>, %q: tensor<3x2x4x16xi32>, %d: tensor<3x2x16xi8>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4x4 blocks need their mins}}
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi32>, tensor<3x2x16xi8> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// kquant4x4 keeps GGUF's integer scales and minimums.
func.func @kquant4x4_float_scales(%x: tensor<4x256xf32>, %q: tensor<3x8x4x16xi32>, %d: tensor<3x8x16xf32>, %m: tensor<3x8x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4x4 scales are 'i8', got 'tensor<3x8x16xf32>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x8x16xf32>) {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x256xf32>, tensor<3x8x4x16xi32>, tensor<3x8x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant4x4_float_mins(%x: tensor<4x256xf32>, %q: tensor<3x8x4x16xi32>, %d: tensor<3x8x16xi8>, %m: tensor<3x8x16xf32>, %f: tensor<3x1x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4x4 mins are 'i8', got 'tensor<3x8x16xf32>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x8x16xf32>) factors(%f : tensor<3x1x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x256xf32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// Their integers multiply each row's f32 d and dmin per super-block.
func.func @kquant4x4_without_factors(%x: tensor<4x256xf32>, %q: tensor<3x8x4x16xi32>, %d: tensor<3x8x16xi8>, %m: tensor<3x8x16xi8>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4x4 needs its super-block factors}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x8x16xi8>) {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x256xf32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// With minimums the factors are d and dmin: two a super-block.
func.func @kquant4x4_factors_shape(%x: tensor<4x256xf32>, %q: tensor<3x8x4x16xi32>, %d: tensor<3x8x16xi8>, %m: tensor<3x8x16xi8>, %f: tensor<3x1x1x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{factors must be [3, 1, 2, 16] (per panel row and super-block: d and dmin), got 'tensor<3x1x1x16xf32>'}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x8x16xi8>) factors(%f : tensor<3x1x1x16xf32>) {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x256xf32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// A k-quant's rows are whole super-blocks of 256.
func.func @kquantx4_partial_super_block(%x: tensor<4x64xf32>, %q: tensor<3x2x8x16xi32>, %d: tensor<3x2x16xi8>, %f: tensor<3x1x1x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquantx4 rows of 64 values are not whole super-blocks of 256}}
  %y = tfm_cpu.quantized_linear %x, %q, %d factors(%f : tensor<3x1x1x16xf32>) {config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8>, out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xi8> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// Only kquantx4 and kquant4x4 have super-block factors.
func.func @kquant_factors(%x: tensor<4x256xf32>, %q: tensor<3x8x32x16xi8>, %d: tensor<3x8x16xf32>, %m: tensor<3x8x16xf32>, %f: tensor<3x1x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant has no super-block factors, only kquantx4 and kquant4x4 have}}
  %y = tfm_cpu.quantized_linear %x, %q, %d mins(%m : tensor<3x8x16xf32>) factors(%f : tensor<3x1x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant, accumulators = 8>, out_features = 40 : i64} : tensor<4x256xf32>, tensor<3x8x32x16xi8>, tensor<3x8x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// expected-error @+1 {{kquant4 block scales are [panels, blocks, width] 'f32' tensors, got 'tensor<3x2x16xf16>'}}
tfm.global_weight @w : tensor<3x2x16xf16> {layout = #tfm_cpu.panels<kquant4, scales>}

// -----

// expected-error @+1 {{kquant4x4 block scales are [panels, blocks, width] 'i8' tensors, got 'tensor<3x2x16xf32>'}}
tfm.global_weight @w : tensor<3x2x16xf32> {layout = #tfm_cpu.panels<kquant4x4, scales>}

// -----

// expected-error @+1 {{kquantx4 factors are [panels, super-blocks, 1 or 2, width] f32 tensors, got 'tensor<3x1x3x16xf32>'}}
tfm.global_weight @w : tensor<3x1x3x16xf32> {layout = #tfm_cpu.panels<kquantx4, factors>}

// -----

// expected-error @+1 {{only kquantx4 and kquant4x4 have super-block factors, not kquant}}
tfm.global_weight @w : tensor<3x1x2x16xf32> {layout = #tfm_cpu.panels<kquant, factors>}

// -----

func.func @packed_linear_features(%x: tensor<4x16xf32>, %w: tensor<3x8x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{weight has 8 input features but the input has 16}}
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x16xf32>, tensor<3x8x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @packed_linear_too_few_panels(%x: tensor<4x8xf32>, %w: tensor<3x8x16xf32>) -> tensor<4x49xf32> {
  // expected-error @+1 {{out_features 49 exceeds the 48 rows of 3 panels of 16}}
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 49 : i64} : tensor<4x8xf32>, tensor<3x8x16xf32> -> tensor<4x49xf32>
  return %y : tensor<4x49xf32>
}

// -----

func.func @packed_linear_bias(%x: tensor<4x8xf32>, %w: tensor<3x8x16xf32>, %b: tensor<48xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{bias has 48 elements but the layer has 40 outputs}}
  %y = tfm_cpu.packed_linear %x, %w, %b {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x8xf32>, tensor<3x8x16xf32>, tensor<48xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// -----

// The configuration's panels say the weight's element type.
func.func @packed_linear_type(%x: tensor<4x8xf32>, %w: tensor<3x8x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{config's panels f32 do not describe 'tensor<3x8x16xf16>'}}
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x8xf32>, tensor<3x8x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// bf16 inputs are read in pairs of features.
func.func @packed_linear_odd_pairs(%x: tensor<4x7xf32>, %w: tensor<3x7x16xbf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{bf16 inputs are read in pairs: 7 input features}}
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8>, out_features = 40 : i64} : tensor<4x7xf32>, tensor<3x7x16xbf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// expected-error @+1 {{accumulators must be positive, got 0}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 0>}

// -----

// expected-error @+1 {{stream_distance must not be negative, got -1}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = -1>}

// -----

// The byte quad layouts are read with int8 inputs only.
// expected-error @+1 {{q8_0x4 panels are read with int8 inputs}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, accumulators = 8>}

// -----

// expected-error @+1 {{kquantx4 panels are read with int8 inputs}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, accumulators = 8>}

// -----

// expected-error @+1 {{int8 inputs read q4_0 panels or byte quads (q8_0x4, q4_0x4, kquantx4, kquant4x4), not q8_0}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, inputs = int8, accumulators = 8>}

// -----

// expected-error @+1 {{bf16 inputs read bf16 panels, not f16}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = f16, inputs = bf16, accumulators = 8>}

// -----

// expected-error @+1 {{vpdpbusd16 sums the byte quads of q8_0x4, q4_0x4, kquantx4 and kquant4x4 panels, not q4_0}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 8, dot = vpdpbusd16>}

// -----

// expected-error @+1 {{vpmaddubsw sums the nibble pairs of q4_0 panels or the byte quads of q4_0x4, kquantx4 and kquant4x4 panels over int8 inputs}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, accumulators = 8, dot = vpmaddubsw>}

// -----

// q8_0x4's bytes (up to 255) would saturate vpmaddubsw's 16-bit pair sums.
// expected-error @+1 {{vpmaddubsw sums the nibble pairs of q4_0 panels or the byte quads of q4_0x4, kquantx4 and kquant4x4 panels over int8 inputs}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8, dot = vpmaddubsw>}

// -----

// expected-error @+1 {{vdpbf16ps sums the pairs of bf16 inputs}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, accumulators = 8, dot = vdpbf16ps>}

// -----

// expected-error @+1 {{block_keys must be positive, got 0}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.attention<block_keys = 0>}

// -----

// expected-error @+1 {{cache_prefetch must not be negative, got -4}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = -4>}

// -----

// expected-error @+1 {{tfm_cpu.config is a #tfm_cpu.projection or #tfm_cpu.attention kernel configuration, got #tfm_cpu.panels<f32>}}
func.func private @f() attributes {tfm_cpu.config = #tfm_cpu.panels<f32>}

// -----

// expected-error @+1 {{unknown tfm_cpu attribute 'tfm_cpu.tile'}}
func.func private @f() attributes {tfm_cpu.tile = 4 : i64}

// -----

// expected-error @+1 {{tfm_cpu.kernel is a unit attribute of a function}}
func.func private @f() attributes {tfm_cpu.kernel = 1 : i64}

// -----

func.func @f() {
  // expected-error @+1 {{tfm_cpu.kernel is a unit attribute of a function}}
  %c0 = arith.constant {tfm_cpu.kernel} 0 : index
  return
}

// -----

// The vocabulary is rows of the panels.
func.func @panel_embedding_vocab(%tokens: tensor<4xi32>, %w: tensor<3x8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op vocab 49 is not in [1, 48], the rows of 3 panels of 16}}
  %x = tfm_cpu.panel_embedding %tokens, %w {layout = #tfm_cpu.panels<f32>, vocab = 49 : i64} : tensor<4xi32>, tensor<3x8x16xf32> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

// One row of the panels' features per token.
func.func @panel_embedding_shape(%tokens: tensor<4xi32>, %w: tensor<3x8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{'tfm_cpu.panel_embedding' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x16xf32>'}}
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op failed to infer returned types}}
  %x = tfm_cpu.panel_embedding %tokens, %w {layout = #tfm_cpu.panels<f32>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x16xf32> -> tensor<4x16xf32>
  return %x : tensor<4x16xf32>
}

// -----

// The layout describes the panels.
func.func @panel_embedding_layout(%tokens: tensor<4xi32>, %w: tensor<3x8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op f16 panels do not hold 'tensor<3x8x16xf32>'}}
  %x = tfm_cpu.panel_embedding %tokens, %w {layout = #tfm_cpu.panels<f16>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x16xf32> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

// Value panels have no scales.
func.func @panel_embedding_value_scales(%tokens: tensor<4xi32>, %w: tensor<3x8x16xf32>, %d: tensor<3x8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op value panels have no scales or minimums}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d {layout = #tfm_cpu.panels<f32>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x16xf32>, tensor<3x8x16xf32> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

// Block panels are rank 4.
func.func @panel_embedding_rank(%tokens: tensor<4xi32>, %w: tensor<3x8x16xi8>, %d: tensor<3x1x16xf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op panels of q8_0 have rank 4, got 'tensor<3x8x16xi8>'}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d {layout = #tfm_cpu.panels<q8_0>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x16xi8>, tensor<3x1x16xf16> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

// Quads are i32.
func.func @panel_embedding_quads(%tokens: tensor<4xi32>, %w: tensor<3x1x8x16xi8>, %d: tensor<3x1x16xf16>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op q8_0x4 quants are i32, not 'i8'}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d {layout = #tfm_cpu.panels<q8_0x4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x1x8x16xi8>, tensor<3x1x16xf16> -> tensor<4x32xf32>
  return %x : tensor<4x32xf32>
}

// -----

// Block formats need their scales.
func.func @panel_embedding_no_scales(%tokens: tensor<4xi32>, %w: tensor<3x1x32x16xi8>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op q8_0 panels need scales}}
  %x = tfm_cpu.panel_embedding %tokens, %w {layout = #tfm_cpu.panels<q8_0>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x1x32x16xi8> -> tensor<4x32xf32>
  return %x : tensor<4x32xf32>
}

// -----

// One scale per block and lane.
func.func @panel_embedding_scale_shape(%tokens: tensor<4xi32>, %w: tensor<3x1x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op scales and minimums are [panels, blocks, width] = [3, 1, 16], got 'tensor<3x2x16xf16>'}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d {layout = #tfm_cpu.panels<q8_0>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x1x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x32xf32>
  return %x : tensor<4x32xf32>
}

// -----

// Q8_0's scales are f16, the k-quants' f32.
func.func @panel_embedding_scale_type(%tokens: tensor<4xi32>, %w: tensor<3x1x32x16xi8>, %d: tensor<3x1x16xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op q8_0 scales are 'f16'}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d {layout = #tfm_cpu.panels<q8_0>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x1x32x16xi8>, tensor<3x1x16xf32> -> tensor<4x32xf32>
  return %x : tensor<4x32xf32>
}

// -----

// Only the k-quants have minimums.
func.func @panel_embedding_mins(%tokens: tensor<4xi32>, %w: tensor<3x1x32x16xi8>, %d: tensor<3x1x16xf16>, %m: tensor<3x1x16xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op q8_0 has no minimums}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d mins %m {layout = #tfm_cpu.panels<q8_0>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x1x32x16xi8>, tensor<3x1x16xf16>, tensor<3x1x16xf32> -> tensor<4x32xf32>
  return %x : tensor<4x32xf32>
}

// -----

// A matrix's rows are in its quants.
func.func @panel_embedding_part(%tokens: tensor<4xi32>, %w: tensor<3x1x32x16xi8>, %d: tensor<3x1x16xf16>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op looks rows up in a matrix's panels, not in its scales}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d {layout = #tfm_cpu.panels<q8_0, scales>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x1x32x16xi8>, tensor<3x1x16xf16> -> tensor<4x32xf32>
  return %x : tensor<4x32xf32>
}

// -----

// A lookup in kquant4x4 panels reads their super-block factors too.
func.func @panel_embedding_factors(%tokens: tensor<4xi32>, %w: tensor<3x8x4x16xi32>, %d: tensor<3x8x16xi8>, %m: tensor<3x8x16xi8>) -> tensor<4x256xf32> {
  // expected-error @+1 {{'tfm_cpu.panel_embedding' op kquant4x4 needs its super-block factors}}
  %x = tfm_cpu.panel_embedding %tokens, %w scales %d mins %m {layout = #tfm_cpu.panels<kquant4x4>, vocab = 40 : i64} : tensor<4xi32>, tensor<3x8x4x16xi32>, tensor<3x8x16xi8>, tensor<3x8x16xi8> -> tensor<4x256xf32>
  return %x : tensor<4x256xf32>
}
