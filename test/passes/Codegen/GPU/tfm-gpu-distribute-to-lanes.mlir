// RUN: tfmc-opt %s -tfm-gpu-distribute-to-lanes -canonicalize -cse | FileCheck %s

// A bufferized warp GEMV over 200 features: each lane loads 4 consecutive
// elements of a 128-element warp-wide slice (a 16-byte load) at lane * 4;
// the second slice, 72 elements long, is a masked load whose mask counts
// what is left of the row past the lane's start; the lane's sum, then the
// warp's, by gpu.subgroup_reduce.
// CHECK-LABEL: func.func @gemv
// CHECK: scf.forall
// CHECK:   %[[LANE:.*]] = gpu.lane_id
// CHECK:   %[[START:.*]] = arith.muli %[[LANE]], %c4 : index
// CHECK:   vector.load %{{.*}}[%c0, %[[START]]] : memref<1x200xf32>, vector<4xf32>
// CHECK:   vector.load %{{.*}}[%c0, %[[START]]] : memref<1x200xf32, strided<[200, 1], offset: ?>>, vector<4xf32>
// CHECK:   %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<4xi1>
// CHECK:   vector.maskedload %{{.*}}, %[[MASK]], %{{.*}} : memref<1x200xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK:   %[[PART:.*]] = vector.reduction <add>, %{{.*}} : vector<4xf32> into f32
// CHECK:   gpu.subgroup_reduce  add %[[PART]] uniform : (f32) -> f32
// CHECK-NOT: vector<128xf32>
// CHECK: } {mapping = [#gpu.warp<x>]}
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0) -> (d0 * 32)>
#map2 = affine_map<(d0) -> (d0 * 16)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemv(%arg0: memref<1x200xf32>, %arg1: memref<512x200xf32>, %arg2: memref<1x512xf32>, %arg3: memref<0xi8> {llvm.align = 64 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    %cst = arith.constant dense<72> : vector<128xindex>
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %cst_0 = arith.constant dense<0.000000e+00> : vector<128xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    scf.forall (%arg4) in (128) {
      %0 = affine.apply #map(%arg4)
      %subview = memref.subview %arg1[%0, 0] [4, 200] [1, 1] : memref<512x200xf32> to memref<4x200xf32, strided<[200, 1], offset: ?>>
      %subview_2 = memref.subview %arg2[0, %0] [1, 4] [1, 1] : memref<1x512xf32> to memref<1x4xf32, strided<[512, 1], offset: ?>>
      scf.forall (%arg5) in (4) {
        %subview_3 = memref.subview %subview[%arg5, 0] [1, 200] [1, 1] : memref<4x200xf32, strided<[200, 1], offset: ?>> to memref<1x200xf32, strided<[200, 1], offset: ?>>
        %subview_4 = memref.subview %subview_2[0, %arg5] [1, 1] [1, 1] : memref<1x4xf32, strided<[512, 1], offset: ?>> to memref<1x1xf32, strided<[512, 1], offset: ?>>
        %1 = vector.transfer_read %arg0[%c0, %c0], %cst_1 {in_bounds = [true]} : memref<1x200xf32>, vector<128xf32>
        %2 = vector.transfer_read %subview_3[%c0, %c0], %cst_1 {in_bounds = [true]} : memref<1x200xf32, strided<[200, 1], offset: ?>>, vector<128xf32>
        %3 = arith.mulf %1, %2 : vector<128xf32>
        %4 = arith.addf %3, %cst_0 : vector<128xf32>
        %5 = vector.step : vector<128xindex>
        %6 = arith.cmpi ult, %5, %cst : vector<128xindex>
        %7 = vector.transfer_read %arg0[%c0, %c128], %cst_1 : memref<1x200xf32>, vector<128xf32>
        %8 = vector.transfer_read %subview_3[%c0, %c128], %cst_1 : memref<1x200xf32, strided<[200, 1], offset: ?>>, vector<128xf32>
        %9 = arith.mulf %7, %8 : vector<128xf32>
        %10 = arith.select %6, %9, %cst_0 : vector<128xi1>, vector<128xf32>
        %11 = arith.addf %4, %10 : vector<128xf32>
        %12 = vector.reduction <add>, %11 : vector<128xf32> into f32
        %13 = arith.addf %12, %cst_1 : f32
        memref.store %13, %subview_4[%c0, %c0] : memref<1x1xf32, strided<[512, 1], offset: ?>>
      } {mapping = [#gpu.warp<x>]}
    } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>}
    return
  }
}
