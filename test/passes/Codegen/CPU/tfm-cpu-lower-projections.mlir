// RUN: tfmc-opt %s -tfm-cpu-lower-projections -split-input-file | FileCheck %s

// f32 value panels: `out[s, p, j] = sum_k x[s, k] * w[p, k, j]` over loops
// (p, s, k, j), the contraction that carries the projection's
// configuration (tfm-cpu-tile-projections' subject), seen as [S, P * W],
// cut to the 20 outputs, plus the bias.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-LABEL: func.func @f32_panels
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME: attrs = {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: %[[COLUMNS:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0], [1, 2]] : tensor<4x2x16xf32> into tensor<4x32xf32>
// CHECK: %[[CUT:.*]] = tensor.extract_slice %[[COLUMNS]][0, 0] [4, 20] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[CUT]], %{{.*}} : tensor<4x20xf32>, tensor<20xf32>)
// CHECK-NOT: tfm_cpu
func.func @f32_panels(%x: tensor<4x8xf32>, %w: tensor<2x8x16xf32>, %b: tensor<20xf32>) -> tensor<4x20xf32> {
  %y = tfm_cpu.packed_linear %x, %w, %b {config = #tfm_cpu.projection<panels = f32, accumulators = 8>, out_features = 20 : i64} : tensor<4x8xf32>, tensor<2x8x16xf32>, tensor<20xf32> -> tensor<4x20xf32>
  return %y : tensor<4x20xf32>
}

// -----

// Q8_0 blocks over f32 inputs: the per-block dot products with the widened
// quants, loops (panel, row, block, quant, lane), then their sum over
// blocks, each times its f16 scale, loops (panel, row, block, lane): the
// second carries the configuration.
// CHECK-LABEL: func.func @q8_0
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x2x32xf32>, tensor<2x2x32x16xi8>) outs(%{{.*}} : tensor<4x2x2x16xf32>) {
// CHECK:   arith.sitofp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[PARTIAL]], %{{.*}} : tensor<4x2x2x16xf32>, tensor<2x2x16xf16>) outs(%{{.*}} : tensor<4x2x16xf32>) attrs = {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, accumulators = 4>}
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: tfm_cpu
func.func @q8_0(%x: tensor<4x64xf32>, %q: tensor<2x2x32x16xi8>, %d: tensor<2x2x16xf16>) -> tensor<4x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0, accumulators = 4>, out_features = 32 : i64} : tensor<4x64xf32>, tensor<2x2x32x16xi8>, tensor<2x2x16xf16> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A lookup in a tied classifier's panels: each token's id, clamped into
// the vocabulary, is lane id % 16 of panel id / 16; 16-bit panels are
// widened, then scaled.
// CHECK-LABEL: func.func @panel_embedding
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<4xi32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: ^bb0(%[[TOKEN:.*]]: i32, %{{.*}}: f32):
// CHECK:   %[[ID:.*]] = arith.index_cast %[[TOKEN]] : i32 to index
// CHECK:   %[[LOW:.*]] = arith.maxsi %[[ID]], %{{.*}} : index
// CHECK:   %[[CLAMPED:.*]] = arith.minsi %[[LOW]], %{{.*}} : index
// CHECK:   %[[FEATURE:.*]] = linalg.index 1 : index
// CHECK:   %[[PANEL:.*]] = arith.divui %[[CLAMPED]], %{{.*}} : index
// CHECK:   %[[LANE:.*]] = arith.remui %[[CLAMPED]], %{{.*}} : index
// CHECK:   %[[VALUE:.*]] = tensor.extract %{{.*}}[%[[PANEL]], %[[FEATURE]], %[[LANE]]] : tensor<3x8x16xf16>
// CHECK:   %[[WIDE:.*]] = arith.extf %[[VALUE]] : f16 to f32
// CHECK:   %[[SCALED:.*]] = arith.mulf %[[WIDE]], %{{.*}} : f32
// CHECK:   linalg.yield %[[SCALED]] : f32
// CHECK-NOT: tfm_cpu
func.func @panel_embedding(%tokens: tensor<4xi32>, %w: tensor<3x8x16xf16>) -> tensor<4x8xf32> {
  %x = tfm_cpu.panel_embedding %tokens, %w {layout = #tfm_cpu.panels<f16>, vocab = 40 : i64, scale = 2.0 : f32} : tensor<4xi32>, tensor<3x8x16xf16> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}
