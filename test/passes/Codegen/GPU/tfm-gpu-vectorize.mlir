// RUN: tfmc-opt %s -split-input-file -tfm-gpu-vectorize -canonicalize -cse | FileCheck %s

// A warp's GEMV tile over 200 features: warp-wide vectors of 128 (4 per
// lane once distributed); the first slice in bounds, the last read past
// the row's end with zero padding (masked once distributed); one reduction
// at the end, added to the fill's value.
// CHECK-LABEL: func.func @gemv
// CHECK: scf.forall
// CHECK: scf.forall
// CHECK-NOT: linalg.generic
// CHECK: %[[X0:.*]] = vector.transfer_read %{{.*}}[%c0, %c0], %{{.*}} {in_bounds = [true]} : tensor<1x200xf32>, vector<128xf32>
// CHECK: %[[W0:.*]] = vector.transfer_read %{{.*}}[%c0, %c0], %{{.*}} {in_bounds = [true]} : tensor<1x200xf32>, vector<128xf32>
// CHECK: arith.mulf %[[X0]], %[[W0]] : vector<128xf32>
// CHECK: vector.transfer_read %{{.*}}[%c0, %c128], %{{.*}} : tensor<1x200xf32>, vector<128xf32>
// CHECK: %[[SUM:.*]] = vector.reduction <add>, %{{.*}} : vector<128xf32> into f32
// CHECK: %[[OUT:.*]] = arith.addf %[[SUM]], %cst
// CHECK: tensor.insert %[[OUT]]
// CHECK: {mapping = [#gpu.warp<x>]}
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d1, d0)>
#map4 = affine_map<(d0) -> (d0 * 32)>
#map5 = affine_map<(d0) -> (d0 * 16)>
func.func @gemv(%arg0: tensor<1x200xf32>, %arg1: tensor<512x200xf32>) -> tensor<1x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x512xf32>
  %1 = scf.forall (%arg2) in (128) shared_outs(%arg3 = %0) -> (tensor<1x512xf32>) {
    %2 = affine.apply #map(%arg2)
    %extracted_slice = tensor.extract_slice %arg1[%2, 0] [4, 200] [1, 1] : tensor<512x200xf32> to tensor<4x200xf32>
    %extracted_slice_0 = tensor.extract_slice %arg3[0, %2] [1, 4] [1, 1] : tensor<1x512xf32> to tensor<1x4xf32>
    %3 = scf.forall (%arg4) in (4) shared_outs(%arg5 = %extracted_slice_0) -> (tensor<1x4xf32>) {
      %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg4, 0] [1, 200] [1, 1] : tensor<4x200xf32> to tensor<1x200xf32>
      %extracted_slice_2 = tensor.extract_slice %arg5[0, %arg4] [1, 1] [1, 1] : tensor<1x4xf32> to tensor<1x1xf32>
      %4 = linalg.fill ins(%cst : f32) outs(%extracted_slice_2 : tensor<1x1xf32>) -> tensor<1x1xf32>
      %5 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %extracted_slice_1 : tensor<1x200xf32>, tensor<1x200xf32>) outs(%4 : tensor<1x1xf32>) attrs =  {tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>} {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %6 = arith.mulf %in, %in_3 : f32
        %7 = arith.addf %out, %6 : f32
        linalg.yield %7 : f32
      } -> tensor<1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %5 into %arg5[0, %arg4] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<1x4xf32>
      }
    } {mapping = [#gpu.warp<x>]}
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %3 into %arg3[0, %2] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<1x512xf32>
    }
  } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>}
  return %1 : tensor<1x512xf32>
}

// -----

// Tensor-core tiles: the warp's 32x16 of the output as four m16n8k16
// accumulators carried across the k loop in steps of 16.
// CHECK-LABEL: func.func @gemm_f16
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<32x16xf32>, vector<16x8xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c16 iter_args(%{{.*}} = %[[ACC]], {{.*}}) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>)
// CHECK:   %[[A:.*]] = vector.transfer_read {{.*}} : tensor<32x256xf16>, vector<16x16xf16>
// CHECK:   %[[B:.*]] = vector.transfer_read {{.*}} : tensor<16x256xf16>, vector<8x16xf16>
// CHECK:   vector.contract {{.*}} %[[A]], %[[B]], %{{.*}} : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
// CHECK-COUNT-3: vector.contract
// CHECK: scf.yield
// CHECK-COUNT-4: vector.transfer_write {{.*}} : vector<16x8xf32>, tensor<32x16xf32>
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d1, d0)>
#map4 = affine_map<(d0) -> (d0 * 32)>
#map5 = affine_map<(d0) -> (d0 * 16)>
func.func @gemm_f16(%arg0: tensor<64x256xf16>, %arg1: tensor<128x256xf16>) -> tensor<64x128xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x128xf32>
  %1 = scf.forall (%arg2) in (4) shared_outs(%arg3 = %0) -> (tensor<64x128xf32>) {
    %2 = affine.apply #map4(%arg2)
    %extracted_slice = tensor.extract_slice %arg1[%2, 0] [32, 256] [1, 1] : tensor<128x256xf16> to tensor<32x256xf16>
    %extracted_slice_0 = tensor.extract_slice %arg3[0, %2] [64, 32] [1, 1] : tensor<64x128xf32> to tensor<64x32xf32>
    %3 = scf.forall (%arg4, %arg5) in (2, 2) shared_outs(%arg6 = %extracted_slice_0) -> (tensor<64x32xf32>) {
      %4 = affine.apply #map5(%arg4)
      %5 = affine.apply #map4(%arg5)
      %extracted_slice_1 = tensor.extract_slice %arg0[%5, 0] [32, 256] [1, 1] : tensor<64x256xf16> to tensor<32x256xf16>
      %extracted_slice_2 = tensor.extract_slice %extracted_slice[%4, 0] [16, 256] [1, 1] : tensor<32x256xf16> to tensor<16x256xf16>
      %extracted_slice_3 = tensor.extract_slice %arg6[%5, %4] [32, 16] [1, 1] : tensor<64x32xf32> to tensor<32x16xf32>
      %6 = linalg.fill ins(%cst : f32) outs(%extracted_slice_3 : tensor<32x16xf32>) -> tensor<32x16xf32>
      %7 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%extracted_slice_1, %extracted_slice_2 : tensor<32x256xf16>, tensor<16x256xf16>) outs(%6 : tensor<32x16xf32>) attrs =  {tfm_gpu.kernel = #tfm_gpu.kernel<gemm_mma, workgroup = [32, 64, 0], subgroup = [16, 32, 0], block = [64, 2, 1], chunk = 16>} {
      ^bb0(%in: f16, %in_4: f16, %out: f32):
        %8 = arith.extf %in : f16 to f32
        %9 = arith.extf %in_4 : f16 to f32
        %10 = arith.mulf %8, %9 : f32
        %11 = arith.addf %out, %10 : f32
        linalg.yield %11 : f32
      } -> tensor<32x16xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %7 into %arg6[%5, %4] [32, 16] [1, 1] : tensor<32x16xf32> into tensor<64x32xf32>
      }
    } {mapping = [#gpu.warp<y>, #gpu.warp<x>]}
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %3 into %arg3[0, %2] [64, 32] [1, 1] : tensor<64x32xf32> into tensor<64x128xf32>
    }
  } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<gemm_mma, workgroup = [32, 64, 0], subgroup = [16, 32, 0], block = [64, 2, 1], chunk = 16>}
  return %1 : tensor<64x128xf32>
}

// -----

// Elementwise: the thread's 1x4 tile as one vector.
// CHECK-LABEL: func.func @add
// CHECK: vector.transfer_read {{.*}} : tensor<1x4xf32>, vector<1x4xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<1x4xf32>, vector<1x4xf32>
// CHECK: arith.addf {{.*}} : vector<1x4xf32>
// CHECK: vector.transfer_write {{.*}} : vector<1x4xf32>, tensor<1x4xf32>
#map = affine_map<(d0) -> (d0 * 16)>
#map1 = affine_map<(d0) -> (d0 * 4)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1, d0)>
#map5 = affine_map<(d0, d1) -> (d0, d1)>
#map6 = affine_map<(d0) -> (d0 * 32)>
func.func @add(%arg0: tensor<32x64xf32>, %arg1: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = tensor.empty() : tensor<32x64xf32>
  %1 = scf.forall (%arg2) in (8) shared_outs(%arg3 = %0) -> (tensor<32x64xf32>) {
    %2 = affine.apply #map1(%arg2)
    %extracted_slice = tensor.extract_slice %arg0[%2, 0] [4, 64] [1, 1] : tensor<32x64xf32> to tensor<4x64xf32>
    %extracted_slice_0 = tensor.extract_slice %arg1[%2, 0] [4, 64] [1, 1] : tensor<32x64xf32> to tensor<4x64xf32>
    %extracted_slice_1 = tensor.extract_slice %arg3[%2, 0] [4, 64] [1, 1] : tensor<32x64xf32> to tensor<4x64xf32>
    %3 = scf.forall (%arg4, %arg5) in (4, 16) shared_outs(%arg6 = %extracted_slice_1) -> (tensor<4x64xf32>) {
      %4 = affine.apply #map1(%arg5)
      %extracted_slice_2 = tensor.extract_slice %extracted_slice[%arg4, %4] [1, 4] [1, 1] : tensor<4x64xf32> to tensor<1x4xf32>
      %extracted_slice_3 = tensor.extract_slice %extracted_slice_0[%arg4, %4] [1, 4] [1, 1] : tensor<4x64xf32> to tensor<1x4xf32>
      %extracted_slice_4 = tensor.extract_slice %arg6[%arg4, %4] [1, 4] [1, 1] : tensor<4x64xf32> to tensor<1x4xf32>
      %5 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_2, %extracted_slice_3 : tensor<1x4xf32>, tensor<1x4xf32>) outs(%extracted_slice_4 : tensor<1x4xf32>) attrs =  {tfm_gpu.kernel = #tfm_gpu.kernel<elementwise, workgroup = [4, 64], thread = [1, 4], block = [16, 4, 1], vector_width = 4>} {
      ^bb0(%in: f32, %in_5: f32, %out: f32):
        %6 = arith.addf %in, %in_5 : f32
        linalg.yield %6 : f32
      } -> tensor<1x4xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %5 into %arg6[%arg4, %4] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<4x64xf32>
      }
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %3 into %arg3[%2, 0] [4, 64] [1, 1] : tensor<4x64xf32> into tensor<32x64xf32>
    }
  } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<elementwise, workgroup = [4, 64], thread = [1, 4], block = [16, 4, 1], vector_width = 4>}
  return %1 : tensor<32x64xf32>
}

// -----

// A warp's tile of a mixture of experts' gate product: the row of the
// weights is gathered (the chosen expert's, found from %experts at run
// time), so the slices read it at that row, computed once per output,
// in warp-wide vectors as any operand's row.
// CHECK-LABEL: func.func @gathered_rows
// CHECK: scf.forall
// CHECK: scf.forall
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.extract %arg2
// CHECK: %[[X0:.*]] = vector.transfer_read %arg0[%c0, %c0], %{{.*}} {in_bounds = [true]} : tensor<1x200xf32>, vector<128xf32>
// CHECK: %[[EXPERT:.*]] = tensor.extract %{{.*}}[%c0, %c0] : tensor<1x1xi32>
// CHECK: %[[E:.*]] = arith.index_cast %[[EXPERT]] : i32 to index
// CHECK: %[[FIRST:.*]] = arith.muli %[[E]], %c128
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: %[[W0:.*]] = vector.transfer_read %arg2[%[[ROW]], %c0], %{{.*}} {in_bounds = [true]} : tensor<512x200xf32>, vector<128xf32>
// CHECK: arith.mulf %[[X0]], %[[W0]] : vector<128xf32>
// CHECK: vector.transfer_read %arg2[%[[ROW]], %c128], %{{.*}} : tensor<512x200xf32>, vector<128xf32>
// CHECK: vector.reduction <add>
// CHECK: {mapping = [#gpu.warp<x>]}
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map4 = affine_map<(d0)[s0] -> (d0 * 4 + s0)>
func.func @gathered_rows(%arg0: tensor<1x200xf32>, %arg1: tensor<1x2xi32>, %arg2: tensor<512x200xf32>) -> tensor<1x2x128xf32> {
  %c128 = arith.constant 128 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x2x128xf32>
  %1 = scf.forall (%arg3, %arg4) in (2, 32) shared_outs(%arg5 = %0) -> (tensor<1x2x128xf32>) {
    %2 = affine.apply #map(%arg4)
    %extracted_slice = tensor.extract_slice %arg1[0, %arg3] [1, 1] [1, 1] : tensor<1x2xi32> to tensor<1x1xi32>
    %extracted_slice_0 = tensor.extract_slice %arg5[0, %arg3, %2] [1, 1, 4] [1, 1, 1] : tensor<1x2x128xf32> to tensor<1x1x4xf32>
    %3 = scf.forall (%arg6) in (4) shared_outs(%arg7 = %extracted_slice_0) -> (tensor<1x1x4xf32>) {
      %extracted_slice_1 = tensor.extract_slice %arg7[0, 0, %arg6] [1, 1, 1] [1, 1, 1] : tensor<1x1x4xf32> to tensor<1x1x1xf32>
      %4 = linalg.fill ins(%cst : f32) outs(%extracted_slice_1 : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
      %5 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %extracted_slice : tensor<1x200xf32>, tensor<1x1xi32>) outs(%4 : tensor<1x1x1xf32>) attrs =  {tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 1, 4, 0], subgroup = [0, 1, 1, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>} {
      ^bb0(%in: f32, %in_2: i32, %out: f32):
        %6 = arith.index_cast %in_2 : i32 to index
        %7 = arith.muli %6, %c128 : index
        %8 = affine.apply #map4(%arg4)[%arg6]
        %9 = arith.addi %7, %8 : index
        %10 = linalg.index 3 : index
        %extracted = tensor.extract %arg2[%9, %10] : tensor<512x200xf32>
        %11 = arith.mulf %in, %extracted : f32
        %12 = arith.addf %out, %11 : f32
        linalg.yield %12 : f32
      } -> tensor<1x1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %5 into %arg7[0, 0, %arg6] [1, 1, 1] [1, 1, 1] : tensor<1x1x1xf32> into tensor<1x1x4xf32>
      }
    } {mapping = [#gpu.warp<x>]}
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %3 into %arg5[0, %arg3, %2] [1, 1, 4] [1, 1, 1] : tensor<1x1x4xf32> into tensor<1x2x128xf32>
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 1, 4, 0], subgroup = [0, 1, 1, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>}
  return %1 : tensor<1x2x128xf32>
}

// -----

// A GEMV tile over Q4_0 blocks (#tfm_gpu.blocks, read through
// tfm_gpu.dequantize): a warp-wide slice of 1024 values is 512 bytes of
// quants, their low and high nibbles put in each block's order (its first
// 16 values low, the next 16 high: once distributed, a lane's own 16
// bytes), minus 8, times each block's scale read as [32, 1] and broadcast
// along the block's 32 values. The row is the warp's, offset by the
// block's.
// CHECK-LABEL: func.func @gemv_q4_0
// CHECK: scf.forall (%[[BLOCK:.*]]) in (2)
// CHECK: %[[FIRST:.*]] = affine.apply #{{.*}}(%[[BLOCK]])
// CHECK: scf.forall (%[[WARP:.*]]) in (4)
// CHECK-NOT: linalg.generic
// CHECK: %[[ROW:.*]] = arith.addi %[[WARP]], %[[FIRST]] : index
// CHECK: %[[QUANTS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<8x2x16x1xi8> into tensor<8x32xi8>
// CHECK: %[[BYTES:.*]] = vector.transfer_read %[[QUANTS]][%[[ROW]], %c0], %{{.*}} : tensor<8x32xi8>, vector<512xi8>
// CHECK: %[[LOW:.*]] = arith.andi %[[BYTES]], %{{.*}} : vector<512xi8>
// CHECK: %[[HIGH:.*]] = arith.shrui %[[BYTES]], %{{.*}} : vector<512xi8>
// CHECK: %[[NIBBLES:.*]] = vector.shuffle %[[LOW]], %[[HIGH]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 512, 513, {{.*}}, 527, 16, 17, {{.*}}] : vector<512xi8>, vector<512xi8>
// CHECK: %[[CENTRED:.*]] = arith.subi %[[NIBBLES]], %{{.*}} : vector<1024xi8>
// CHECK: %[[VALUES:.*]] = arith.sitofp %[[CENTRED]] : vector<1024xi8> to vector<1024xf32>
// CHECK: %[[SCALES:.*]] = vector.transfer_read %{{.*}}[%[[ROW]], %c0, %c0], %{{.*}} {in_bounds = [false, true]} : tensor<8x2x1xf16>, vector<32x1xf16>
// CHECK: %[[REPEATED:.*]] = vector.broadcast %[[SCALES]] : vector<32x1xf16> to vector<32x32xf16>
// CHECK: %[[ALONG:.*]] = vector.shape_cast %[[REPEATED]] : vector<32x32xf16> to vector<1024xf16>
// CHECK: %[[WIDE:.*]] = arith.extf %[[ALONG]] : vector<1024xf16> to vector<1024xf32>
// CHECK: %[[WEIGHTS:.*]] = arith.mulf %[[VALUES]], %[[WIDE]] : vector<1024xf32>
// CHECK: arith.mulf %{{.*}}, %[[WEIGHTS]] : vector<1024xf32>
// CHECK: vector.reduction <add>
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemv_q4_0(%arg0: tensor<1x64xf32>, %arg1: tensor<8x2x16x1xi8>, %arg2: tensor<8x2x1xf16>) -> tensor<1x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tfm_gpu.dequantize q4_0 %arg1, %arg2 : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
  %1 = tensor.empty() : tensor<1x8xf32>
  %2 = scf.forall (%arg3) in (2) shared_outs(%arg4 = %1) -> (tensor<1x8xf32>) {
    %3 = affine.apply #map(%arg3)
    %extracted_slice = tensor.extract_slice %0[%3, 0] [4, 64] [1, 1] : tensor<8x64xf32> to tensor<4x64xf32>
    %extracted_slice_0 = tensor.extract_slice %arg4[0, %3] [1, 4] [1, 1] : tensor<1x8xf32> to tensor<1x4xf32>
    %4 = scf.forall (%arg5) in (4) shared_outs(%arg6 = %extracted_slice_0) -> (tensor<1x4xf32>) {
      %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg5, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<1x64xf32>
      %extracted_slice_2 = tensor.extract_slice %arg6[0, %arg5] [1, 1] [1, 1] : tensor<1x4xf32> to tensor<1x1xf32>
      %5 = linalg.fill ins(%cst : f32) outs(%extracted_slice_2 : tensor<1x1xf32>) -> tensor<1x1xf32>
      %6 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %extracted_slice_1 : tensor<1x64xf32>, tensor<1x64xf32>) outs(%5 : tensor<1x1xf32>) attrs =  {tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 4, 0], subgroup = [0, 1, 0], block = [128, 1, 1], vector_width = 32, chunk = 1024>} {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %7 = arith.mulf %in, %in_3 : f32
        %8 = arith.addf %out, %7 : f32
        linalg.yield %8 : f32
      } -> tensor<1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %6 into %arg6[0, %arg5] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<1x4xf32>
      }
    } {mapping = [#gpu.warp<x>]}
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %4 into %arg4[0, %3] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<1x8xf32>
    }
  } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 4, 0], subgroup = [0, 1, 0], block = [128, 1, 1], vector_width = 32, chunk = 1024>}
  return %2 : tensor<1x8xf32>
}
