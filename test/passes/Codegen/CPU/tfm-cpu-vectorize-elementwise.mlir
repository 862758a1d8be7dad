// RUN: tfmc-opt %s -tfm-cpu-vectorize-elementwise -canonicalize -split-input-file | FileCheck %s

// RMSNorm's scaling: a row of 32 features is one strip, read per element,
// per row (the inverse root) and per column (the weight). The per-row value
// is computed once per strip instead of once per element.
// CHECK-LABEL: func.func @norm_scale
// CHECK-SAME: (%[[X:.*]]: tensor<4x32xf32>, %[[SUM:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<32xf32>)
// CHECK: scf.forall (%[[ROW:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK-DAG: %[[XS:.*]] = tensor.extract_slice %[[X]][%[[ROW]], 0] [1, 32]
// CHECK-DAG: vector.transfer_read %[[XS]]{{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK-DAG: vector.transfer_read %[[W]]{{.*}} : tensor<32xf32>, vector<1x32xf32>
// CHECK-DAG: math.sqrt %{{.*}} : vector<1x32xf32>
// CHECK: %[[STRIP:.*]] = vector.transfer_write %{{.*}} : vector<1x32xf32>, tensor<1x32xf32>
// CHECK: tensor.parallel_insert_slice %[[STRIP]] into %[[OUT]][%[[ROW]], 0] [1, 32]
// CHECK-NOT: linalg.generic
func.func @norm_scale(%x: tensor<4x32xf32>, %sum: tensor<4xf32>, %w: tensor<32xf32>) -> tensor<4x32xf32> {
  %empty = tensor.empty() : tensor<4x32xf32>
  %eps = arith.constant 1.0e-5 : f32
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                       affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %w : tensor<4x32xf32>, tensor<4xf32>, tensor<32xf32>) outs(%empty : tensor<4x32xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %shifted = arith.addf %s, %eps : f32
    %root = math.sqrt %shifted : f32
    %n = arith.divf %a, %root : f32
    %y = arith.mulf %n, %g : f32
    linalg.yield %y : f32
  } -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

// An innermost dimension wider than max-strip (64) is cut into the widest
// strips of whole 16-lane vectors that divide it: 96 = 2 x 48.
// CHECK-LABEL: func.func @wide_rows
// CHECK: scf.forall (%[[ROW:.*]], %[[COL:.*]]) = (0, 0) to (2, 96) step (1, 48)
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<1x48xf32>
func.func @wide_rows(%x: tensor<2x96xf32>, %y: tensor<2x96xf32>) -> tensor<2x96xf32> {
  %empty = tensor.empty() : tensor<2x96xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<2x96xf32>, tensor<2x96xf32>) outs(%empty : tensor<2x96xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x96xf32>
  return %r : tensor<2x96xf32>
}

// -----

// 100 features have no strip of whole vectors: the op is left to LLVM.
// CHECK-LABEL: func.func @no_strip
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
func.func @no_strip(%x: tensor<2x100xf32>) -> tensor<2x100xf32> {
  %empty = tensor.empty() : tensor<2x100xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x100xf32>) outs(%empty : tensor<2x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x100xf32>
  return %r : tensor<2x100xf32>
}

// -----

// Reductions (a norm's row sums) are left to LLVM, which vectorises them.
// CHECK-LABEL: func.func @row_sums
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
func.func @row_sums(%x: tensor<2x32xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x32xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// An op inside a loop belongs to a kernel another pass built.
// CHECK-LABEL: func.func @inside_kernel
// CHECK: scf.for
// CHECK: linalg.generic
func.func @inside_kernel(%x: tensor<2x32xf32>) -> tensor<2x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<2x32xf32>) {
    %next = linalg.generic {
        indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
        iterator_types = ["parallel", "parallel"]}
        outs(%acc : tensor<2x32xf32>) {
    ^bb0(%o: f32):
      %s = arith.mulf %o, %o : f32
      linalg.yield %s : f32
    } -> tensor<2x32xf32>
    scf.yield %next : tensor<2x32xf32>
  }
  return %r : tensor<2x32xf32>
}

// -----

// Dynamic shapes have no static strip.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
func.func @dynamic_rows(%x: tensor<?x32xf32>, %out: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x32xf32>) outs(%out : tensor<?x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
