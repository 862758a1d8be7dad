// RUN: tfmc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{block_quant is q8_0, q8_0x4, q4_0, q4_0x4, kquant or kquant4, got 'q5_k'}}
tfm.global_weight @w : tensor<3x2x32x16xi8> {block_quant = "q5_k", panels}

// -----

// expected-error @+1 {{block-quantized weights are panels}}
tfm.global_weight @w : tensor<3x2x32x16xi8> {block_quant = "q8_0"}

// -----

// A Q8_0 block is 32 bytes per row in the panels.
// expected-error @+1 {{q8_0 quants are [panels, blocks, 32, width] 'i8' tensors, got 'tensor<3x2x16x16xi8>'}}
tfm.global_weight @w : tensor<3x2x16x16xi8> {block_quant = "q8_0", panels}

// -----

// expected-error @+1 {{q4_0 quants are [panels, blocks, 16, width] 'i8' tensors, got 'tensor<3x2x16x16xf32>'}}
tfm.global_weight @w : tensor<3x2x16x16xf32> {block_quant = "q4_0", panels}

// -----

// q8_0x4 holds four int8 a lane: i32 quants.
// expected-error @+1 {{q8_0x4 quants are [panels, blocks, 8, width] 'i32' tensors, got 'tensor<3x2x32x16xi8>'}}
tfm.global_weight @w : tensor<3x2x32x16xi8> {block_quant = "q8_0x4", panels}

// -----

// q4_0x4 holds a block's 16 bytes four a lane: 4 lanes per block and row.
// expected-error @+1 {{q4_0x4 quants are [panels, blocks, 4, width] 'i32' tensors, got 'tensor<3x2x8x16xi32>'}}
tfm.global_weight @w : tensor<3x2x8x16xi32> {block_quant = "q4_0x4", panels}

// -----

// expected-error @+1 {{q8_0 block scales are [panels, blocks, width] 'f16' tensors, got 'tensor<3x2x16xf32>'}}
tfm.global_weight @w : tensor<3x2x16xf32> {block_quant = "q8_0", block_scales, panels}

// -----

// expected-error @+1 {{block_scales needs block_quant}}
tfm.global_weight @w : tensor<3x2x16xf16> {block_scales, panels}

// -----

// expected-error @+1 {{block_mins needs block_quant}}
tfm.global_weight @w : tensor<3x2x16xf32> {block_mins, panels}

// -----

// kquant blocks are the k-quants' sub-blocks: 16 or 32 values.
// expected-error @+1 {{kquant quants are [panels, blocks, 16 or 32, width] i8 tensors, got 'tensor<3x2x64x16xi8>'}}
tfm.global_weight @w : tensor<3x2x64x16xi8> {block_quant = "kquant", panels}

// -----

// kquant scales are f32 (the product of an f16 and a sub-block integer).
// expected-error @+1 {{kquant block scales are [panels, blocks, width] 'f32' tensors, got 'tensor<3x2x16xf16>'}}
tfm.global_weight @w : tensor<3x2x16xf16> {block_quant = "kquant", block_scales, panels}

// -----

// expected-error @+1 {{kquant block mins are [panels, blocks, width] 'f32' tensors, got 'tensor<3x2xf32>'}}
tfm.global_weight @w : tensor<3x2xf32> {block_mins, block_quant = "kquant", panels}

// -----

// expected-error @+1 {{only kquant and kquant4 blocks have mins}}
tfm.global_weight @w : tensor<3x2x16xf32> {block_mins, block_quant = "q4_0", panels}

// -----

// expected-error @+1 {{is either the block scales or the block mins}}
tfm.global_weight @w : tensor<3x2x16xf32> {block_mins, block_quant = "kquant", block_scales, panels}

// -----

func.func @format(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{format is q8_0, q8_0x4, q4_0, q4_0x4, kquant or kquant4, got 'q4_1'}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q4_1", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @quants_per_block(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q4_0 quants hold 16 elements per block and row, got 32}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q4_0", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @quad_quants(%x: tensor<4x64xf32>, %q: tensor<3x2x8x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q8_0x4 quants are 'i32', got 'tensor<3x2x8x16xi8>'}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q8_0x4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @nibble_quad_quants(%x: tensor<4x64xf32>, %q: tensor<3x2x4x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q4_0x4 quants are 'i32', got 'tensor<3x2x4x16xi8>'}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q4_0x4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x4x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @nibble_quads_per_block(%x: tensor<4x64xf32>, %q: tensor<3x2x8x16xi32>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{q4_0x4 quants hold 4 elements per block and row, got 8}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q4_0x4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x8x16xi32>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// The input features are whole blocks of 32.
func.func @features(%x: tensor<4x60xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{input has 60 features but the weight has 2 blocks of 32 per row}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q8_0", out_features = 40 : i64} : tensor<4x60xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// One scale per panel row and block.
func.func @scales(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x1x16xf16>) -> tensor<4x40xf32> {
  // expected-error @+1 {{scales must be [3, 2, 16] (one per panel row and block), got 'tensor<3x1x16xf16>'}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q8_0", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x1x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @too_few_panels(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>) -> tensor<4x49xf32> {
  // expected-error @+1 {{out_features 49 exceeds the 48 rows of 3 panels of 16}}
  %y = tfm.quantized_linear %x, %q, %d {format = "q8_0", out_features = 49 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x49xf32>
  return %y : tensor<4x49xf32>
}

// -----

func.func @bias(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>, %b: tensor<48xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{bias has 48 elements but the layer has 40 outputs}}
  %y = tfm.quantized_linear %x, %q, %d, %b {format = "q8_0", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16>, tensor<48xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @q8_0_with_mins(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf16>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{only kquant and kquant4 blocks have mins}}
  %y = tfm.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {format = "q8_0", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant_f16_scales(%x: tensor<4x64xf32>, %q: tensor<3x4x16x16xi8>, %d: tensor<3x4x16xf16>, %m: tensor<3x4x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant scales are 'f32', got 'tensor<3x4x16xf16>'}}
  %y = tfm.quantized_linear %x, %q, %d mins(%m : tensor<3x4x16xf32>) {format = "kquant", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x4x16x16xi8>, tensor<3x4x16xf16> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant_block_length(%x: tensor<4x64xf32>, %q: tensor<3x1x64x16xi8>, %d: tensor<3x1x16xf32>, %m: tensor<3x1x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant blocks are 16 or 32 values, got 64}}
  %y = tfm.quantized_linear %x, %q, %d mins(%m : tensor<3x1x16xf32>) {format = "kquant", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x1x64x16xi8>, tensor<3x1x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// Blocks of 16: 64 features are 4 blocks.
func.func @kquant_features(%x: tensor<4x64xf32>, %q: tensor<3x2x16x16xi8>, %d: tensor<3x2x16xf32>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{input has 64 features but the weight has 2 blocks of 16 per row}}
  %y = tfm.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {format = "kquant", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant_mins_shape(%x: tensor<4x64xf32>, %q: tensor<3x4x16x16xi8>, %d: tensor<3x4x16xf32>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{mins must be [3, 4, 16] (one per panel row and block), got 'tensor<3x2x16xf32>'}}
  %y = tfm.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {format = "kquant", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x4x16x16xi8>, tensor<3x4x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// kquant4 holds two values a byte, in blocks of 32 like Q4_0.
func.func @kquant4_quants(%x: tensor<4x64xf32>, %q: tensor<3x2x32x16xi8>, %d: tensor<3x2x16xf32>, %m: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4 quants hold 16 elements per block and row, got 32}}
  %y = tfm.quantized_linear %x, %q, %d mins(%m : tensor<3x2x16xf32>) {format = "kquant4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x32x16xi8>, tensor<3x2x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @kquant4_without_mins(%x: tensor<4x64xf32>, %q: tensor<3x2x16x16xi8>, %d: tensor<3x2x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{kquant4 blocks need their mins}}
  %y = tfm.quantized_linear %x, %q, %d {format = "kquant4", out_features = 40 : i64} : tensor<4x64xf32>, tensor<3x2x16x16xi8>, tensor<3x2x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

// expected-error @+1 {{kquant4 block scales are [panels, blocks, width] 'f32' tensors, got 'tensor<3x2x16xf16>'}}
tfm.global_weight @w : tensor<3x2x16xf16> {block_quant = "kquant4", block_scales, panels}
