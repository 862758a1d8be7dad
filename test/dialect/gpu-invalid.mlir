// RUN: tfmc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{the GPU keeps q8_0, q4_0, kquant and kquant4 blocks, not kquantx4}}
tfm.global_weight @w : tensor<8x2x16x1xi8> {layout = #tfm_gpu.blocks<kquantx4>}

// -----

// expected-error @+1 {{q8_0 blocks have quants and scales, not mins}}
tfm.global_weight @w : tensor<8x2x1xf16> {layout = #tfm_gpu.blocks<q8_0, mins>}

// -----

// expected-error @+1 {{q4_0 block quants are [rows, blocks, 16, 1] i8 tensors, got 'tensor<8x2x32x1xi8>'}}
tfm.global_weight @w : tensor<8x2x32x1xi8> {layout = #tfm_gpu.blocks<q4_0>}

// -----

// expected-error @+1 {{q8_0 block scales are [rows, blocks, 1] f16 tensors, got 'tensor<8x2xf16>'}}
tfm.global_weight @w : tensor<8x2xf16> {layout = #tfm_gpu.blocks<q8_0, scales>}

// -----

func.func @not_blocks(%q: tensor<8x2x16x1xi8>, %s: tensor<8x2x1xf16>) -> tensor<8x64xf32> {
  // expected-error @+1 {{reads q8_0, q4_0, kquant or kquant4 blocks, not q4_0x4}}
  %w = tfm_gpu.dequantize q4_0x4 %q, %s : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
  return %w : tensor<8x64xf32>
}

// -----

func.func @wrong_quants(%q: tensor<8x2x16x1xi8>, %s: tensor<8x2x1xf16>) -> tensor<8x64xf32> {
  // expected-error @+1 {{q8_0 block quants are [rows, blocks, 32, 1] i8 tensors, got 'tensor<8x2x16x1xi8>'}}
  %w = tfm_gpu.dequantize q8_0 %q, %s : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
  return %w : tensor<8x64xf32>
}

// -----

func.func @wrong_columns(%q: tensor<8x2x16x1xi8>, %s: tensor<8x2x1xf16>) -> tensor<8x48xf32> {
  // expected-error @+1 {{reads a 8x48 matrix from 'tensor<8x2x16x1xi8>' quants and 'tensor<8x2x1xf16>' scales: each row is its blocks of 32 values}}
  %w = tfm_gpu.dequantize q4_0 %q, %s : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x48xf32>
  return %w : tensor<8x48xf32>
}

// -----

// expected-error @+1 {{kquant blocks have quants, scales and mins, not factors}}
tfm.global_weight @w : tensor<8x2x1xf32> {layout = #tfm_gpu.blocks<kquant, factors>}

// -----

// expected-error @+1 {{kquant block quants are [rows, blocks, 16 or 32, 1] i8 tensors, got 'tensor<8x2x8x1xi8>'}}
tfm.global_weight @w : tensor<8x2x8x1xi8> {layout = #tfm_gpu.blocks<kquant>}

// -----

// expected-error @+1 {{kquant4 block mins are [rows, blocks, 1] f32 tensors, got 'tensor<8x2x1xf16>'}}
tfm.global_weight @w : tensor<8x2x1xf16> {layout = #tfm_gpu.blocks<kquant4, mins>}

// -----

func.func @mins_of_q8_0(%q: tensor<8x2x32x1xi8>, %s: tensor<8x2x1xf16>, %m: tensor<8x2x1xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{reads q8_0 blocks, which have no minimums}}
  %w = tfm_gpu.dequantize q8_0 %q, %s, %m : tensor<8x2x32x1xi8>, tensor<8x2x1xf16>, tensor<8x2x1xf32> -> tensor<8x64xf32>
  return %w : tensor<8x64xf32>
}

// -----

func.func @kquant_columns(%q: tensor<8x2x16x1xi8>, %s: tensor<8x2x1xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{reads a 8x64 matrix from 'tensor<8x2x16x1xi8>' quants and 'tensor<8x2x1xf32>' scales: each row is its blocks of 16 values}}
  %w = tfm_gpu.dequantize kquant %q, %s : tensor<8x2x16x1xi8>, tensor<8x2x1xf32> -> tensor<8x64xf32>
  return %w : tensor<8x64xf32>
}
