// RUN: tfmc-opt %s -split-input-file -verify-diagnostics -tfm-gpu-distribute-to-lanes

// Tensor-core warps are refused with a diagnostic: their lowering to
// mma.sync is unfinished.
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0) -> (d0 * 32)>
#map2 = affine_map<(d0) -> (d0 * 16)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemm_f16(%arg0: memref<64x256xf16>, %arg1: memref<128x256xf16>, %arg2: memref<64x128xf32>, %arg3: memref<0xi8> {llvm.align = 64 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    %cst = arith.constant 0.000000e+00 : f16
    %c256 = arith.constant 256 : index
    %c16 = arith.constant 16 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    scf.forall (%arg4) in (4) {
      %0 = affine.apply #map1(%arg4)
      %subview = memref.subview %arg1[%0, 0] [32, 256] [1, 1] : memref<128x256xf16> to memref<32x256xf16, strided<[256, 1], offset: ?>>
      %subview_1 = memref.subview %arg2[0, %0] [64, 32] [1, 1] : memref<64x128xf32> to memref<64x32xf32, strided<[128, 1], offset: ?>>
      // expected-error @+1 {{holds tensor-core (gemm_mma) tiles, whose mma.sync lowering is unfinished: select kernel configs with tensor-cores=false}}
      scf.forall (%arg5, %arg6) in (2, 2) {
        %1 = affine.apply #map2(%arg5)
        %2 = affine.apply #map1(%arg6)
        %subview_2 = memref.subview %arg0[%2, 0] [32, 256] [1, 1] : memref<64x256xf16> to memref<32x256xf16, strided<[256, 1], offset: ?>>
        %subview_3 = memref.subview %subview[%1, 0] [16, 256] [1, 1] : memref<32x256xf16, strided<[256, 1], offset: ?>> to memref<16x256xf16, strided<[256, 1], offset: ?>>
        %subview_4 = memref.subview %subview_1[%2, %1] [32, 16] [1, 1] : memref<64x32xf32, strided<[128, 1], offset: ?>> to memref<32x16xf32, strided<[128, 1], offset: ?>>
        linalg.fill ins(%cst_0 : f32) outs(%subview_4 : memref<32x16xf32, strided<[128, 1], offset: ?>>)
        %3 = vector.transfer_read %subview_4[%c0, %c0], %cst_0 {in_bounds = [true, true]} : memref<32x16xf32, strided<[128, 1], offset: ?>>, vector<16x8xf32>
        %4 = vector.transfer_read %subview_4[%c0, %c8], %cst_0 {in_bounds = [true, true]} : memref<32x16xf32, strided<[128, 1], offset: ?>>, vector<16x8xf32>
        %5 = vector.transfer_read %subview_4[%c16, %c0], %cst_0 {in_bounds = [true, true]} : memref<32x16xf32, strided<[128, 1], offset: ?>>, vector<16x8xf32>
        %6 = vector.transfer_read %subview_4[%c16, %c8], %cst_0 {in_bounds = [true, true]} : memref<32x16xf32, strided<[128, 1], offset: ?>>, vector<16x8xf32>
        %7:4 = scf.for %arg7 = %c0 to %c256 step %c16 iter_args(%arg8 = %3, %arg9 = %4, %arg10 = %5, %arg11 = %6) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>) {
          %8 = vector.transfer_read %subview_2[%c0, %arg7], %cst {in_bounds = [true, true]} : memref<32x256xf16, strided<[256, 1], offset: ?>>, vector<16x16xf16>
          %9 = vector.transfer_read %subview_3[%c0, %arg7], %cst {in_bounds = [true, true]} : memref<16x256xf16, strided<[256, 1], offset: ?>>, vector<8x16xf16>
          %10 = vector.contract {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %8, %9, %arg8 : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
          %11 = vector.transfer_read %subview_3[%c8, %arg7], %cst {in_bounds = [true, true]} : memref<16x256xf16, strided<[256, 1], offset: ?>>, vector<8x16xf16>
          %12 = vector.contract {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %8, %11, %arg9 : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
          %13 = vector.transfer_read %subview_2[%c16, %arg7], %cst {in_bounds = [true, true]} : memref<32x256xf16, strided<[256, 1], offset: ?>>, vector<16x16xf16>
          %14 = vector.contract {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %13, %9, %arg10 : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
          %15 = vector.contract {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %13, %11, %arg11 : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
          scf.yield %10, %12, %14, %15 : vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>
        }
        vector.transfer_write %7#0, %subview_4[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<32x16xf32, strided<[128, 1], offset: ?>>
        vector.transfer_write %7#1, %subview_4[%c0, %c8] {in_bounds = [true, true]} : vector<16x8xf32>, memref<32x16xf32, strided<[128, 1], offset: ?>>
        vector.transfer_write %7#2, %subview_4[%c16, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<32x16xf32, strided<[128, 1], offset: ?>>
        vector.transfer_write %7#3, %subview_4[%c16, %c8] {in_bounds = [true, true]} : vector<16x8xf32>, memref<32x16xf32, strided<[128, 1], offset: ?>>
      } {mapping = [#gpu.warp<y>, #gpu.warp<x>]}
    } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<gemm_mma, workgroup = [32, 64, 0], subgroup = [16, 32, 0], block = [64, 2, 1], chunk = 16>}
    return
  }
}


// -----

// A shuffle that reverses a warp-wide row moves elements between lanes.
func.func @reversed(%row: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%warp) in (1) {
    %r = vector.transfer_read %row[%c0], %pad {in_bounds = [true]} : memref<64xf32>, vector<64xf32>
    // expected-error @+1 {{moves elements between lanes: no lane distribution for it}}
    %s = vector.shuffle %r, %r [63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0] : vector<64xf32>, vector<64xf32>
    vector.transfer_write %s, %out[%c0] {in_bounds = [true]} : vector<64xf32>, memref<64xf32>
  } {mapping = [#gpu.warp<x>]}
  return
}

// -----

// Each scale repeated twice along 128 elements: a lane's slice of 4 holds
// two of them, which one read cannot give.
func.func @repeats_across_slices(%scales: memref<64x1xf16>, %out: memref<128xf16>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f16
  scf.forall (%warp) in (1) {
    %r = vector.transfer_read %scales[%c0, %c0], %pad {in_bounds = [true, true]} : memref<64x1xf16>, vector<64x1xf16>
    %b = vector.broadcast %r : vector<64x1xf16> to vector<64x2xf16>
    // expected-error @+1 {{repeats each value 2 times, which lane slices of 4 cross: no lane distribution for it}}
    %c = vector.shape_cast %b : vector<64x2xf16> to vector<128xf16>
    vector.transfer_write %c, %out[%c0] {in_bounds = [true]} : vector<128xf16>, memref<128xf16>
  } {mapping = [#gpu.warp<x>]}
  return
}
