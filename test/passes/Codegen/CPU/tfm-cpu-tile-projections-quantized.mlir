// RUN: tfmc-opt %s -tfm-cpu-tile-projections -canonicalize -split-input-file | FileCheck %s

// Q8_0 panels as the tfm.quantized_linear lowering writes them, loops
// (panel, row, block, quant, lane). Decode: threads share the 4 panels; the
// micro-kernel steps one quant at a time, reads 16 int8 of one panel row
// with one load (each byte once), widens them, multiplies by the block's 16
// scales and does one FMA into the accumulator kept in registers.
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#d = affine_map<(p, s, b, i, j) -> (p, b, j)>
#o = affine_map<(p, s, b, i, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q8_0_decode
// CHECK: scf.forall (%{{.*}}) in (4) shared_outs
// CHECK:   %[[INIT:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf32>, vector<16xf32>
// CHECK:   scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[INIT]]) -> (vector<16xf32>)
// CHECK:     scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%[[A:.*]] = %{{.*}}) -> (vector<16xf32>)
// CHECK:       %[[Q:.*]] = vector.transfer_read {{.*}} : tensor<1x1x1x16xi8>, vector<16xi8>
// CHECK:       %[[D:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf16>, vector<16xf16>
// CHECK:       %[[SCALE:.*]] = arith.extf %[[D]] : vector<16xf16> to vector<16xf32>
// CHECK:       %[[WIDE:.*]] = arith.sitofp %[[Q]] : vector<16xi8> to vector<16xf32>
// CHECK:       %[[W:.*]] = arith.mulf %[[WIDE]], %[[SCALE]] : vector<16xf32>
// CHECK:       vector.contract {{.*}} %[[A]] : vector<1x1x16xf32>, vector<1x1x16xf32> into vector<16xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
func.func @q8_0_decode(%x: tensor<1x2x32xf32>, %q: tensor<4x2x32x16xi8>, %d: tensor<4x2x16xf16>, %init: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #d, #o], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %q, %d : tensor<1x2x32xf32>, tensor<4x2x32x16xi8>, tensor<4x2x16xf16>) outs(%init : tensor<1x4x16xf32>) {
  ^bb0(%a: f32, %b: i8, %c: f16, %acc: f32):
    %scale = arith.extf %c : f16 to f32
    %wq = arith.sitofp %b : i8 to f32
    %w = arith.mulf %wq, %scale : f32
    %m = arith.mulf %a, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16xf32>
  return %r : tensor<1x4x16xf32>
}

// -----

// Q4_0, prefill of 8 rows: one load of 16 bytes gives both nibbles (the
// block's columns i and 16 + i), widened and scaled for the 8 accumulator
// rows (the same value in each row, which LLVM computes once).
#xl = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#d = affine_map<(p, s, b, i, j) -> (p, b, j)>
#o = affine_map<(p, s, b, i, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q4_0_prefill
// CHECK: scf.forall
// CHECK:   scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK:     scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK:       %[[Q:.*]] = vector.transfer_read {{.*}} : tensor<1x1x1x16xi8>, vector<8x1x1x16xi8>
// CHECK-DAG:   arith.andi %[[Q]], %{{.*}} : vector<8x1x1x16xi8>
// CHECK-DAG:   arith.shrui %[[Q]], %{{.*}} : vector<8x1x1x16xi8>
// CHECK:       %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<8x16xf32>
// CHECK:       scf.yield %[[SUM]] : vector<8x16xf32>
// CHECK-NOT: linalg.generic
func.func @q4_0_prefill(%lo: tensor<8x2x16xf32>, %hi: tensor<8x2x16xf32>, %q: tensor<2x2x16x16xi8>, %d: tensor<2x2x16xf16>, %init: tensor<8x2x16xf32>) -> tensor<8x2x16xf32> {
  %r = linalg.generic {indexing_maps = [#xl, #xl, #w, #d, #o], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%lo, %hi, %q, %d : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<2x2x16x16xi8>, tensor<2x2x16xf16>) outs(%init : tensor<8x2x16xf32>) {
  ^bb0(%a: f32, %a2: f32, %b: i8, %c: f16, %acc: f32):
    %c15 = arith.constant 15 : i8
    %c4 = arith.constant 4 : i8
    %c8 = arith.constant 8 : i8
    %scale = arith.extf %c : f16 to f32
    %low = arith.andi %b, %c15 : i8
    %high = arith.shrui %b, %c4 : i8
    %l = arith.subi %low, %c8 : i8
    %h = arith.subi %high, %c8 : i8
    %lf = arith.sitofp %l : i8 to f32
    %hf = arith.sitofp %h : i8 to f32
    %lw = arith.mulf %lf, %scale : f32
    %hw = arith.mulf %hf, %scale : f32
    %t1 = arith.mulf %a, %lw : f32
    %t2 = arith.mulf %a2, %hw : f32
    %t = arith.addf %t1, %t2 : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<8x2x16xf32>
  return %r : tensor<8x2x16xf32>
}
