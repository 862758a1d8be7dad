// RUN: tfmc-opt %s -split-input-file -tfm-cpu-tile-attention -verify-diagnostics

// The blocks of keys are the kernel configuration's choice
// (tfm-cpu-select-kernel-config): a kernel without one is an error.
func.func @unconfigured(%q: tensor<2x16xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>, %pos: index) -> tensor<2x16xf32> {
  %init = tensor.empty() : tensor<2x16xf32>
  // expected-error @+1 {{has no kernel configuration (tfm-cpu-select-kernel-config chooses its blocks of keys)}}
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<2x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>) offset(%pos) outs(%init : tensor<2x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>} -> tensor<2x16xf32>
  return %o : tensor<2x16xf32>
}
