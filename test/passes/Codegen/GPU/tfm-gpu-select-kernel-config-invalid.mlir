// RUN: tfmc-opt %s -split-input-file -verify-diagnostics -tfm-gpu-select-kernel-config
// RUN: not tfmc-opt %s -split-input-file -tfm-gpu-select-kernel-config=arch=sm_75 2>&1 | FileCheck %s --check-prefix=ARCH

// ARCH: unsupported GPU arch 'sm_75' (expected sm_80, sm_86, sm_89 or sm_90)

// The GPU pipeline takes linalg: a tfm op left unconverted is named.
func.func @unconverted(%x: tensor<4x64xf32>, %g: tensor<64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{has no GPU kernel: the GPU pipeline takes linalg (run convert-tfm-to-linalg first)}}
  %r = tfm.rms_norm %x, %g {eps = 1.0e-5 : f32} : tensor<4x64xf32>, tensor<64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// The CPU backend's configured ops are not the GPU's input.
func.func @cpu_packed(%x: tensor<4x8xf32>, %w: tensor<3x8x16xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{is the CPU backend's (tfm_cpu): the GPU pipeline takes target-neutral linalg}}
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 40 : i64} : tensor<4x8xf32>, tensor<3x8x16xf32> -> tensor<4x40xf32>
  return %y : tensor<4x40xf32>
}

// -----

func.func @dynamic(%a: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{has dynamic shapes: no GPU kernel for it}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x64xf32>) outs(%a : tensor<?x64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}
