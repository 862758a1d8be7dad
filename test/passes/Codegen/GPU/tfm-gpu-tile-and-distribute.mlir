// RUN: tfmc-opt %s -split-input-file -tfm-gpu-tile-and-distribute -canonicalize | FileCheck %s

#x = affine_map<(d0, d1, d2) -> (d1, d2)>
#w = affine_map<(d0, d1, d2) -> (d0, d2)>
#o = affine_map<(d0, d1, d2) -> (d1, d0)>

// A warp reduction: blocks of 4 outputs over #gpu.block<x>, a warp per
// output; the fill comes along into each warp's tile, which keeps the
// config for tfm-gpu-vectorize, as does the block forall for its launch.
// CHECK-LABEL: func.func @gemv
// CHECK: scf.forall (%[[B:.*]]) in (128)
// CHECK:   scf.forall (%[[W:.*]]) in (4)
// CHECK:     %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<1x1xf32>
// CHECK:     linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x256xf32>, tensor<1x256xf32>) outs(%[[FILL]] : tensor<1x1xf32>) attrs = {tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction
// CHECK:   } {mapping = [#gpu.warp<x>]}
// CHECK: } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 256>}
func.func @gemv(%x: tensor<1x256xf32>, %w: tensor<512x256xf32>) -> tensor<1x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x512xf32>) -> tensor<1x512xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x256xf32>, tensor<512x256xf32>) outs(%f : tensor<1x512xf32>) attrs = {tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 256>} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  return %r : tensor<1x512xf32>
}

// -----

// Elementwise: 16x4 threads a block, each a vector of 4; the grid is the
// 8 row tiles of 4 (y: the inner loop is whole in a block).
// CHECK-LABEL: func.func @add
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (4, 16)
// CHECK:     linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4xf32>)
// CHECK:   } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<elementwise
func.func @add(%a: tensor<32x64xf32>, %b: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) attrs = {tfm_gpu.kernel = #tfm_gpu.kernel<elementwise, workgroup = [4, 64], thread = [1, 4], block = [16, 4, 1], vector_width = 4>} {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}
