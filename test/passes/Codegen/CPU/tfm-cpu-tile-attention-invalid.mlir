// RUN: tfmc-opt %s -tfm-cpu-tile-attention -split-input-file -verify-diagnostics
// RUN: not tfmc-opt %s -tfm-cpu-tile-attention=block-keys=0 2>&1 | FileCheck %s --check-prefix=BLOCK

// BLOCK: tfm-cpu-tile-attention: block-keys must be positive

func.func @window(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  %init = tensor.empty() : tensor<4x16xf32>
  // expected-error @+1 {{has a sliding_window mask, which tfm-cpu-tile-attention does not support yet}}
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 2 : i64} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}
