// RUN: tfmc-opt %s -split-input-file -tfm-cpu-tile-projections -verify-diagnostics

// The kernels are the ops that carry a projection's configuration; one that
// has no kernel's form (here: a row-major weight) is an error, not a loop
// left untiled.
func.func @row_major_weight(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %init: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{carries a projection's kernel configuration but is neither a static panel projection nor the scaled sum of one over blocks}}
  %r = linalg.generic {indexing_maps = [affine_map<(o, s, k) -> (s, k)>, affine_map<(o, s, k) -> (o, k)>, affine_map<(o, s, k) -> (s, o)>],
                       iterator_types = ["parallel", "parallel", "reduction"],
                       tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<2x8xf32>, tensor<4x8xf32>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
