// RUN: tfmc-opt %s -tfm-gpu-map-to-launches -canonicalize | FileCheck %s

// Two bufferized, lane-distributed GEMV kernels (two layers): each block
// forall becomes a gpu.launch with its grid (64 blocks) and the block of
// its kernel config (128 threads); the warp forall becomes the warp index
// (thread x / 32); a barrier closes each kernel. The intermediate lives in
// the caller's scratch (a memref.view), passed to both kernels like any
// other buffer.
// CHECK-LABEL: func.func @two_layers
// CHECK: %[[VIEW:.*]] = memref.view %arg4
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:   %[[BLOCK:.*]] = gpu.block_id x
// CHECK:   memref.subview %arg1[%{{.*}}, 0] [4, 256]
// CHECK:   memref.subview %[[VIEW]]
// CHECK:   %[[TID:.*]] = gpu.thread_id x
// CHECK:   affine.apply #{{.*}}()[%[[TID]]]
// CHECK:   gpu.subgroup_reduce add
// CHECK:   gpu.barrier
// CHECK:   gpu.terminator
// CHECK: gpu.launch
// CHECK:   memref.subview %arg2[%{{.*}}, 0] [4, 256]
// CHECK:   vector.load %[[VIEW]]
// CHECK-NOT: scf.forall
#map = affine_map<(d0) -> (d0 * 4)>
module {
  func.func @two_layers(%arg0: memref<1x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256x256xf32>, %arg3: memref<1x256xf32>, %arg4: memref<1024xi8> {llvm.align = 64 : i64, llvm.dereferenceable = 1024 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    %cst = arith.constant dense<0.000000e+00> : vector<4xf32>
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %view = memref.view %arg4[%c0][] : memref<1024xi8> to memref<1x256xf32>
    scf.forall (%arg5) in (64) {
      %0 = affine.apply #map(%arg5)
      %subview = memref.subview %arg1[%0, 0] [4, 256] [1, 1] : memref<256x256xf32> to memref<4x256xf32, strided<[256, 1], offset: ?>>
      %subview_1 = memref.subview %view[0, %0] [1, 4] [1, 1] : memref<1x256xf32> to memref<1x4xf32, strided<[256, 1], offset: ?>>
      scf.forall (%arg6) in (4) {
        %1 = gpu.lane_id
        %subview_2 = memref.subview %subview[%arg6, 0] [1, 256] [1, 1] : memref<4x256xf32, strided<[256, 1], offset: ?>> to memref<1x256xf32, strided<[256, 1], offset: ?>>
        %subview_3 = memref.subview %subview_1[0, %arg6] [1, 1] [1, 1] : memref<1x4xf32, strided<[256, 1], offset: ?>> to memref<1x1xf32, strided<[256, 1], offset: ?>>
        %2 = arith.muli %1, %c4 : index
        %3 = vector.load %arg0[%c0, %2] : memref<1x256xf32>, vector<4xf32>
        %4 = vector.load %subview_2[%c0, %2] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
        %5 = arith.mulf %3, %4 : vector<4xf32>
        %6 = arith.addf %5, %cst : vector<4xf32>
        %7 = arith.addi %2, %c128 : index
        %8 = vector.load %arg0[%c0, %7] : memref<1x256xf32>, vector<4xf32>
        %9 = vector.load %subview_2[%c0, %7] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
        %10 = arith.mulf %8, %9 : vector<4xf32>
        %11 = arith.addf %6, %10 : vector<4xf32>
        %12 = vector.reduction <add>, %11 : vector<4xf32> into f32
        %13 = gpu.subgroup_reduce  add %12 uniform : (f32) -> f32
        %14 = arith.addf %13, %cst_0 : f32
        memref.store %14, %subview_3[%c0, %c0] : memref<1x1xf32, strided<[256, 1], offset: ?>>
      } {mapping = [#gpu.warp<x>]}
    } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 256>}
    scf.forall (%arg5) in (64) {
      %0 = affine.apply #map(%arg5)
      %subview = memref.subview %arg2[%0, 0] [4, 256] [1, 1] : memref<256x256xf32> to memref<4x256xf32, strided<[256, 1], offset: ?>>
      %subview_1 = memref.subview %arg3[0, %0] [1, 4] [1, 1] : memref<1x256xf32> to memref<1x4xf32, strided<[256, 1], offset: ?>>
      scf.forall (%arg6) in (4) {
        %1 = gpu.lane_id
        %subview_2 = memref.subview %subview[%arg6, 0] [1, 256] [1, 1] : memref<4x256xf32, strided<[256, 1], offset: ?>> to memref<1x256xf32, strided<[256, 1], offset: ?>>
        %subview_3 = memref.subview %subview_1[0, %arg6] [1, 1] [1, 1] : memref<1x4xf32, strided<[256, 1], offset: ?>> to memref<1x1xf32, strided<[256, 1], offset: ?>>
        %2 = arith.muli %1, %c4 : index
        %3 = vector.load %view[%c0, %2] : memref<1x256xf32>, vector<4xf32>
        %4 = vector.load %subview_2[%c0, %2] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
        %5 = arith.mulf %3, %4 : vector<4xf32>
        %6 = arith.addf %5, %cst : vector<4xf32>
        %7 = arith.addi %2, %c128 : index
        %8 = vector.load %view[%c0, %7] : memref<1x256xf32>, vector<4xf32>
        %9 = vector.load %subview_2[%c0, %7] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
        %10 = arith.mulf %8, %9 : vector<4xf32>
        %11 = arith.addf %6, %10 : vector<4xf32>
        %12 = vector.reduction <add>, %11 : vector<4xf32> into f32
        %13 = gpu.subgroup_reduce  add %12 uniform : (f32) -> f32
        %14 = arith.addf %13, %cst_0 : f32
        memref.store %14, %subview_3[%c0, %c0] : memref<1x1xf32, strided<[256, 1], offset: ?>>
      } {mapping = [#gpu.warp<x>]}
    } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 256>}
    return
  }
}

