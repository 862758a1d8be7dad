// RUN: tfmc-opt %s -tfm-cpu-tile-projections=parallel-tiles=1 -canonicalize -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-tile-projections="parallel-tiles=1 kquant-gemv-panels=2" -canonicalize -split-input-file | FileCheck %s --check-prefix=TWO
// RUN: tfmc-opt %s -tfm-cpu-tile-projections="parallel-tiles=1 kquant-gemv-panels=0" -canonicalize -split-input-file | FileCheck %s --check-prefix=UNLIMITED

// A k-quant decode GEMV over 8 panels (one thread's share with
// parallel-tiles=1): tiles of 1 panel by default, 8 tasks of one
// accumulator; of 2 panels with kquant-gemv-panels=2; without the limit
// the 8 accumulators take all 8 panels in one tile (no task loop left).
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#sum = affine_map<(p, s, b, j) -> (s, b)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @kquant_decode
// CHECK: scf.forall (%{{.*}}) in (8) shared_outs
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// TWO-LABEL: func.func @kquant_decode
// TWO: scf.forall (%{{.*}}) = (0) to (8) step (2) shared_outs
// TWO: scf.for {{.*}} -> (vector<2x1x16xf32>)
// UNLIMITED-LABEL: func.func @kquant_decode
// UNLIMITED-NOT: scf.forall
// UNLIMITED: scf.for {{.*}} -> (vector<8x1x16xf32>)
func.func @kquant_decode(%x: tensor<1x4x16xf32>, %q: tensor<8x4x16x16xi8>, %d: tensor<8x4x16xf32>, %m: tensor<8x4x16xf32>, %sums: tensor<1x4xf32>) -> tensor<1x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %partial = linalg.generic {indexing_maps = [#x, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %q : tensor<1x4x16xf32>, tensor<8x4x16x16xi8>) outs(%pinit : tensor<1x8x4x16xf32>) {
  ^bb0(%a: f32, %b: i8, %acc: f32):
    %wq = arith.sitofp %b : i8 to f32
    %p = arith.mulf %a, %wq : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x16xf32>
  %e2 = tensor.empty() : tensor<1x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #d, #sum, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = kquant, accumulators = 8>}
      ins(%partial, %d, %m, %sums : tensor<1x8x4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>, tensor<1x4xf32>) outs(%init : tensor<1x8x16xf32>) {
  ^bb0(%a: f32, %scale: f32, %min: f32, %sum: f32, %acc: f32):
    %scaled = arith.mulf %a, %scale : f32
    %offset = arith.mulf %min, %sum : f32
    %term = arith.subf %scaled, %offset : f32
    %s = arith.addf %acc, %term : f32
    linalg.yield %s : f32
  } -> tensor<1x8x16xf32>
  return %r : tensor<1x8x16xf32>
}

// -----

// Q8_0 is not a k-quant: its GEMV tile takes the 8 accumulators' panels
// whatever the option says.
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q8_0_decode
// CHECK-NOT: scf.forall
// CHECK: scf.for {{.*}} -> (vector<8x1x16xf32>)
// TWO-LABEL: func.func @q8_0_decode
// TWO-NOT: scf.forall
// TWO: scf.for {{.*}} -> (vector<8x1x16xf32>)
// UNLIMITED-LABEL: func.func @q8_0_decode
// UNLIMITED-NOT: scf.forall
// UNLIMITED: scf.for {{.*}} -> (vector<8x1x16xf32>)
func.func @q8_0_decode(%x: tensor<1x2x32xf32>, %q: tensor<8x2x32x16xi8>, %d: tensor<8x2x16xf16>) -> tensor<1x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x2x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  %partial = linalg.generic {indexing_maps = [#x, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %q : tensor<1x2x32xf32>, tensor<8x2x32x16xi8>) outs(%pinit : tensor<1x8x2x16xf32>) {
  ^bb0(%a: f32, %b: i8, %acc: f32):
    %wq = arith.sitofp %b : i8 to f32
    %m = arith.mulf %a, %wq : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x2x16xf32>
  %e2 = tensor.empty() : tensor<1x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>}
      ins(%partial, %d : tensor<1x8x2x16xf32>, tensor<8x2x16xf16>) outs(%init : tensor<1x8x16xf32>) {
  ^bb0(%a: f32, %c: f16, %acc: f32):
    %scale = arith.extf %c : f16 to f32
    %m = arith.mulf %a, %scale : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x16xf32>
  return %r : tensor<1x8x16xf32>
}

// -----

// A k-quant prefill tile of 2 rows sweeps its panels once per row group:
// it keeps the accumulators' 4 panels.
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#sum = affine_map<(p, s, b, j) -> (s, b)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @kquant_prefill
// CHECK: scf.forall (%{{.*}}) = (0) to (8) step (4) shared_outs
// CHECK: scf.for {{.*}} -> (vector<4x2x16xf32>)
// TWO-LABEL: func.func @kquant_prefill
// TWO: scf.forall (%{{.*}}) = (0) to (8) step (4) shared_outs
// TWO: scf.for {{.*}} -> (vector<4x2x16xf32>)
// UNLIMITED-LABEL: func.func @kquant_prefill
// UNLIMITED: scf.forall (%{{.*}}) = (0) to (8) step (4) shared_outs
// UNLIMITED: scf.for {{.*}} -> (vector<4x2x16xf32>)
func.func @kquant_prefill(%x: tensor<2x4x16xf32>, %q: tensor<8x4x16x16xi8>, %d: tensor<8x4x16xf32>, %m: tensor<8x4x16xf32>, %sums: tensor<2x4xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x16xf32>) -> tensor<2x8x4x16xf32>
  %partial = linalg.generic {indexing_maps = [#x, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %q : tensor<2x4x16xf32>, tensor<8x4x16x16xi8>) outs(%pinit : tensor<2x8x4x16xf32>) {
  ^bb0(%a: f32, %b: i8, %acc: f32):
    %wq = arith.sitofp %b : i8 to f32
    %p = arith.mulf %a, %wq : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x4x16xf32>
  %e2 = tensor.empty() : tensor<2x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #d, #sum, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = kquant, accumulators = 8>}
      ins(%partial, %d, %m, %sums : tensor<2x8x4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>, tensor<2x4xf32>) outs(%init : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %scale: f32, %min: f32, %sum: f32, %acc: f32):
    %scaled = arith.mulf %a, %scale : f32
    %offset = arith.mulf %min, %sum : f32
    %term = arith.subf %scaled, %offset : f32
    %s = arith.addf %acc, %term : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

