// RUN: tfmc-opt %s -tfm-cpu-tile-projections -canonicalize -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-tile-projections=parallel-tiles=1 -canonicalize -split-input-file | FileCheck %s --check-prefix=FEWTASKS
// RUN: tfmc-opt %s -tfm-cpu-tile-projections=fuse-epilogues=false -canonicalize -split-input-file | FileCheck %s --check-prefix=UNFUSED

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>

// Prefill: threads share the 4 panels; each micro-kernel keeps 8 rows x 16
// lanes of accumulators in registers across the loop over the 8 input
// features, reading them once before it and writing them once after it.
// CHECK-LABEL: func.func @prefill
// CHECK: scf.forall (%[[P:.*]]) in (4) shared_outs
// CHECK:   scf.for %[[S:.*]] = %c0 to %c16 step %c8
// CHECK:     %[[INIT:.*]] = vector.transfer_read {{.*}} : tensor<8x1x16xf32>, vector<8x16xf32>
// CHECK:     %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%[[A:.*]] = %[[INIT]]) -> (vector<8x16xf32>)
// CHECK:       %[[X:.*]] = vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1x16xf32>
// CHECK:       %[[W:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf32>, vector<8x1x16xf32>
// CHECK:       %[[NEXT:.*]] = vector.contract {{.*}} %[[X]], %[[W]], %[[A]]
// CHECK:       scf.yield %[[NEXT]] : vector<8x16xf32>
// The kernel's loops carry its configuration, for the passes that read it
// after bufferization (prefetch, dot instructions).
// CHECK:     } {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
// CHECK:     vector.transfer_write %[[ACC]]
// CHECK:   } {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
// CHECK: tensor.parallel_insert_slice
// CHECK: } {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
// CHECK-NOT: linalg.generic
func.func @prefill(%x: tensor<16x8xf32>, %w: tensor<4x8x16xf32>, %init: tensor<16x4x16xf32>) -> tensor<16x4x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<16x8xf32>, tensor<4x8x16xf32>) outs(%init : tensor<16x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x4x16xf32>
  return %r : tensor<16x4x16xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>

// Decode (one row): a micro-kernel takes several panels, so that several
// independent FMA chains hide the FMA latency, as long as 16 panel groups
// are left for the threads (32 panels: 2 per micro-kernel); with
// parallel-tiles=1 it takes all 8 accumulators.
// CHECK-LABEL: func.func @decode
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (2)
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<2x1x16xf32>)
// FEWTASKS-LABEL: func.func @decode
// FEWTASKS: scf.forall (%{{.*}}) = (0) to (32) step (8)
// FEWTASKS:   scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x1x16xf32>)
func.func @decode(%x: tensor<1x8xf32>, %w: tensor<32x8x16xf32>, %init: tensor<1x32x16xf32>) -> tensor<1x32x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<1x8xf32>, tensor<32x8x16xf32>) outs(%init : tensor<1x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x16xf32>
  return %r : tensor<1x32x16xf32>
}

// -----

// Contractions that carry no projection's kernel configuration (here: a
// row-major weight) are left to the generic loop lowering.
// CHECK-LABEL: func.func @row_major_weight
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
func.func @row_major_weight(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %init: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(o, s, k) -> (s, k)>, affine_map<(o, s, k) -> (o, k)>, affine_map<(o, s, k) -> (s, o)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x8xf32>, tensor<4x8xf32>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>

// A gated projection (tfm-fuse-ffn's stacked gate/up, 2 x 4 panels) and its
// SwiGLU epilogue over the two column halves: each task computes one panel
// of the gate half and the same panel of the up half (two register-tiled
// loops over the features, each on its half of the weights), then
// silu(gate) * up for its panel, row by row. The epilogue's result keeps the
// panel layout; a collapse gives back the columns.
// CHECK-LABEL: func.func @gated
// CHECK-DAG: %[[GATE_W:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [4, 8, 16]
// CHECK-DAG: %[[UP_W:.*]] = tensor.extract_slice %{{.*}}[4, 0, 0] [4, 8, 16]
// CHECK: %[[Y:.*]] = scf.forall (%[[P:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<16x4x16xf32>)
// CHECK:   tensor.extract_slice %[[GATE_W]][%[[P]], 0, 0] [1, 8, 16]
// CHECK:   %[[GATE:.*]] = scf.for
// CHECK:     scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK:   tensor.extract_slice %[[UP_W]][%[[P]], 0, 0] [1, 8, 16]
// CHECK:   %[[UP:.*]] = scf.for
// CHECK:     scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK:   scf.for %[[ROW:.*]] = %c0 to %c16 step %c1
// CHECK:     tensor.extract_slice %[[GATE]][%[[ROW]], 0, 0] [1, 1, 16]
// CHECK:     tensor.extract_slice %[[UP]][%[[ROW]], 0, 0] [1, 1, 16]
// CHECK:     math.exp {{.*}} : vector<16xf32>
// CHECK:   tensor.parallel_insert_slice {{.*}} into %[[OUT]][0, %[[P]], 0] [16, 1, 16]
// CHECK: %[[COLUMNS:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2]] : tensor<16x4x16xf32> into tensor<16x64xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[COLUMNS]]
// With fuse-epilogues=false, the projection is tiled alone and the
// epilogue stays a separate elementwise op.
// UNFUSED-LABEL: func.func @gated
// UNFUSED: scf.forall (%{{.*}}) in (8)
// UNFUSED: tensor.collapse_shape
// UNFUSED: linalg.generic
// UNFUSED-SAME: ["parallel", "parallel"]
// UNFUSED: math.exp
func.func @gated(%x: tensor<16x8xf32>, %w: tensor<8x8x16xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %empty = tensor.empty() : tensor<16x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x8x16xf32>) -> tensor<16x8x16xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<16x8xf32>, tensor<8x8x16xf32>) outs(%init : tensor<16x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x8x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<16x8x16xf32> into tensor<16x128xf32>
  %gate = tensor.extract_slice %columns[0, 0] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  %up = tensor.extract_slice %columns[0, 64] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  %out = tensor.empty() : tensor<16x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<16x64xf32>, tensor<16x64xf32>) outs(%out : tensor<16x64xf32>) {
  ^bb0(%g: f32, %u: f32, %unused: f32):
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %silu = arith.divf %g, %d : f32
    %prod = arith.mulf %silu, %u : f32
    linalg.yield %prod : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>

// The projection's columns are also read elsewhere (returned): splitting it
// would compute them twice, so the projection is tiled alone and the
// elementwise op is left as it is.
// CHECK-LABEL: func.func @columns_read_twice
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK: linalg.generic
// CHECK-SAME: ["parallel", "parallel"]
func.func @columns_read_twice(%x: tensor<16x8xf32>, %w: tensor<8x8x16xf32>) -> (tensor<16x64xf32>, tensor<16x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x8x16xf32>) -> tensor<16x8x16xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<16x8xf32>, tensor<8x8x16xf32>) outs(%init : tensor<16x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x8x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<16x8x16xf32> into tensor<16x128xf32>
  %gate = tensor.extract_slice %columns[0, 0] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  %up = tensor.extract_slice %columns[0, 64] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  %out = tensor.empty() : tensor<16x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<16x64xf32>, tensor<16x64xf32>) outs(%out : tensor<16x64xf32>) {
  ^bb0(%g: f32, %u: f32, %unused: f32):
    %prod = arith.mulf %g, %u : f32
    linalg.yield %prod : f32
  } -> tensor<16x64xf32>
  return %y, %columns : tensor<16x64xf32>, tensor<16x128xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>

func.func private @combine(f32, f32) -> f32

// An epilogue that linalg cannot vectorise (a call in its body) is left as
// it is.
// CHECK-LABEL: func.func @unvectorisable_epilogue
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK: linalg.generic
// CHECK: func.call @combine
func.func @unvectorisable_epilogue(%x: tensor<16x8xf32>, %w: tensor<8x8x16xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x8x16xf32>) -> tensor<16x8x16xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<16x8xf32>, tensor<8x8x16xf32>) outs(%init : tensor<16x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x8x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<16x8x16xf32> into tensor<16x128xf32>
  %gate = tensor.extract_slice %columns[0, 0] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  %up = tensor.extract_slice %columns[0, 64] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  %out = tensor.empty() : tensor<16x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<16x64xf32>, tensor<16x64xf32>) outs(%out : tensor<16x64xf32>) {
  ^bb0(%g: f32, %u: f32, %unused: f32):
    %prod = func.call @combine(%g, %u) : (f32, f32) -> f32
    linalg.yield %prod : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>
#col = affine_map<(s, n) -> (n)>

// An epilogue of one projection with other operands: a residual read per
// element and a bias read per column (GPT-2's output projections). They are
// reshaped to the panel layout; each task adds them to its panels.
// CHECK-LABEL: func.func @residual_and_bias
// CHECK-DAG: %[[RESIDUAL:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [16, 4, 16] : tensor<16x64xf32> into tensor<16x4x16xf32>
// CHECK-DAG: %[[BIAS:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
// CHECK: %[[Y:.*]] = scf.forall (%[[P:.*]]) in (4) shared_outs
// CHECK:   %[[RESIDUAL_TILE:.*]] = tensor.extract_slice %[[RESIDUAL]][0, %[[P]], 0] [16, 1, 16]
// CHECK:   %[[TILE:.*]] = scf.for
// CHECK:     scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK:   tensor.extract_slice %[[BIAS]][%[[P]], 0] [1, 16]
// CHECK:   scf.for %[[ROW:.*]] = %c0 to %c16 step %c1
// CHECK:     tensor.extract_slice %[[RESIDUAL_TILE]][%[[ROW]], 0, 0] [1, 1, 16]
// CHECK:     tensor.extract_slice %[[TILE]][%[[ROW]], 0, 0] [1, 1, 16]
// CHECK:     arith.addf {{.*}} : vector<16xf32>
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2]] : tensor<16x4x16xf32> into tensor<16x64xf32>
// CHECK-NOT: linalg.generic
func.func @residual_and_bias(%x: tensor<16x8xf32>, %w: tensor<4x8x16xf32>, %residual: tensor<16x64xf32>, %bias: tensor<64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x4x16xf32>) -> tensor<16x4x16xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<16x8xf32>, tensor<4x8x16xf32>) outs(%init : tensor<16x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x4x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<16x4x16xf32> into tensor<16x64xf32>
  %out = tensor.empty() : tensor<16x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%residual, %columns, %bias : tensor<16x64xf32>, tensor<16x64xf32>, tensor<64xf32>) outs(%out : tensor<16x64xf32>) {
  ^bb0(%res: f32, %p: f32, %b: f32, %unused: f32):
    %biased = arith.addf %p, %b : f32
    %sum = arith.addf %res, %biased : f32
    linalg.yield %sum : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>
#transposed = affine_map<(s, n) -> (n, s)>

// An operand read in another order than the projection's columns has no
// panel layout to match: the epilogue is left as it is.
// CHECK-LABEL: func.func @transposed_operand
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: linalg.generic
func.func @transposed_operand(%x: tensor<16x8xf32>, %w: tensor<4x8x16xf32>, %other: tensor<64x16xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x4x16xf32>) -> tensor<16x4x16xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<16x8xf32>, tensor<4x8x16xf32>) outs(%init : tensor<16x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x4x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<16x4x16xf32> into tensor<16x64xf32>
  %out = tensor.empty() : tensor<16x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #transposed, #id], iterator_types = ["parallel", "parallel"]}
      ins(%columns, %other : tensor<16x64xf32>, tensor<64x16xf32>) outs(%out : tensor<16x64xf32>) {
  ^bb0(%p: f32, %o: f32, %unused: f32):
    %sum = arith.addf %p, %o : f32
    linalg.yield %sum : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>

// 512 rows: a task's tile of the projection (512 rows x 16 lanes of f32)
// would exceed the 16 KiB a task may keep for itself, so the epilogue is
// left as it is.
// CHECK-LABEL: func.func @tile_too_large
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: linalg.generic
func.func @tile_too_large(%x: tensor<512x8xf32>, %w: tensor<4x8x16xf32>, %bias: tensor<64xf32>) -> tensor<512x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x4x16xf32>) -> tensor<512x4x16xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8>}
      ins(%x, %w : tensor<512x8xf32>, tensor<4x8x16xf32>) outs(%init : tensor<512x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x4x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<512x4x16xf32> into tensor<512x64xf32>
  %out = tensor.empty() : tensor<512x64xf32>
  %y = linalg.generic {indexing_maps = [#id, affine_map<(s, n) -> (n)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%columns, %bias : tensor<512x64xf32>, tensor<64xf32>) outs(%out : tensor<512x64xf32>) {
  ^bb0(%p: f32, %b: f32, %unused: f32):
    %sum = arith.addf %p, %b : f32
    linalg.yield %sum : f32
  } -> tensor<512x64xf32>
  return %y : tensor<512x64xf32>
}

// -----

#x = affine_map<(p, s, k, j) -> (s, k)>
#w = affine_map<(p, s, k, j) -> (p, k, j)>
#o = affine_map<(p, s, k, j) -> (s, p, j)>

// The configuration's accumulators make the tile, whatever the target: 4
// (what tfm-cpu-select-kernel-config chooses for AVX2, which has 16
// registers of 256 bits) give a micro-kernel of 4 rows.
// CHECK-LABEL: func.func @avx2_target
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c4
// CHECK:   scf.for {{.*}} -> (vector<4x16xf32>)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "haswell", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16>>} {
  func.func @avx2_target(%x: tensor<16x8xf32>, %w: tensor<4x8x16xf32>, %init: tensor<16x4x16xf32>) -> tensor<16x4x16xf32> {
    %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 4>}
        ins(%x, %w : tensor<16x8xf32>, tensor<4x8x16xf32>) outs(%init : tensor<16x4x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<16x4x16xf32>
    return %r : tensor<16x4x16xf32>
  }
}
