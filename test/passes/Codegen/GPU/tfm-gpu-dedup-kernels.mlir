// RUN: tfmc-opt %s -split-input-file -tfm-gpu-dedup-kernels | FileCheck %s

// Two layers' GEMVs, outlined: equal but for their names, since weights
// and intermediates are arguments. Both launches go to the first kernel;
// the second module is gone.
// CHECK-LABEL: func.func @two_layers
// CHECK: gpu.launch_func @two_layers_kernel::@two_layers_kernel {{.*}} args(%arg1 : memref<256x256xf32>
// CHECK: gpu.launch_func @two_layers_kernel::@two_layers_kernel {{.*}} args(%arg2 : memref<256x256xf32>
// CHECK: gpu.module @two_layers_kernel
// CHECK-NOT: gpu.module
#map = affine_map<()[s0] -> (s0 * 4)>
#map1 = affine_map<()[s0] -> (s0 floordiv 32)>
module attributes {gpu.container_module} {
  func.func @two_layers(%arg0: memref<1x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256x256xf32>, %arg3: memref<1x256xf32>, %arg4: memref<1024xi8> {llvm.align = 64 : i64, llvm.dereferenceable = 1024 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %view = memref.view %arg4[%c0][] : memref<1024xi8> to memref<1x256xf32>
    gpu.launch_func  @two_layers_kernel::@two_layers_kernel blocks in (%c64, %c1, %c1) threads in (%c128, %c1, %c1)  args(%arg1 : memref<256x256xf32>, %view : memref<1x256xf32>, %arg0 : memref<1x256xf32>)
    gpu.launch_func  @two_layers_kernel_0::@two_layers_kernel blocks in (%c64, %c1, %c1) threads in (%c128, %c1, %c1)  args(%arg2 : memref<256x256xf32>, %arg3 : memref<1x256xf32>, %view : memref<1x256xf32>)
    return
  }
  gpu.module @two_layers_kernel {
    gpu.func @two_layers_kernel(%arg0: memref<256x256xf32>, %arg1: memref<1x256xf32>, %arg2: memref<1x256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
      %c4 = arith.constant 4 : index
      %cst = arith.constant dense<0.000000e+00> : vector<4xf32>
      %c128 = arith.constant 128 : index
      %cst_0 = arith.constant 0.000000e+00 : f32
      %c0 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map()[%block_id_x]
      %subview = memref.subview %arg0[%0, 0] [4, 256] [1, 1] : memref<256x256xf32> to memref<4x256xf32, strided<[256, 1], offset: ?>>
      %subview_1 = memref.subview %arg1[0, %0] [1, 4] [1, 1] : memref<1x256xf32> to memref<1x4xf32, strided<[256, 1], offset: ?>>
      %thread_id_x = gpu.thread_id  x
      %1 = affine.apply #map1()[%thread_id_x]
      %2 = gpu.lane_id
      %subview_2 = memref.subview %subview[%1, 0] [1, 256] [1, 1] : memref<4x256xf32, strided<[256, 1], offset: ?>> to memref<1x256xf32, strided<[256, 1], offset: ?>>
      %subview_3 = memref.subview %subview_1[0, %1] [1, 1] [1, 1] : memref<1x4xf32, strided<[256, 1], offset: ?>> to memref<1x1xf32, strided<[256, 1], offset: ?>>
      %3 = arith.muli %2, %c4 : index
      %4 = vector.load %arg2[%c0, %3] : memref<1x256xf32>, vector<4xf32>
      %5 = vector.load %subview_2[%c0, %3] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
      %6 = arith.mulf %4, %5 : vector<4xf32>
      %7 = arith.addf %6, %cst : vector<4xf32>
      %8 = arith.addi %3, %c128 : index
      %9 = vector.load %arg2[%c0, %8] : memref<1x256xf32>, vector<4xf32>
      %10 = vector.load %subview_2[%c0, %8] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
      %11 = arith.mulf %9, %10 : vector<4xf32>
      %12 = arith.addf %7, %11 : vector<4xf32>
      %13 = vector.reduction <add>, %12 : vector<4xf32> into f32
      %14 = gpu.subgroup_reduce  add %13 uniform : (f32) -> f32
      %15 = arith.addf %14, %cst_0 : f32
      memref.store %15, %subview_3[%c0, %c0] : memref<1x1xf32, strided<[256, 1], offset: ?>>
      gpu.barrier
      gpu.return
    }
  }
  gpu.module @two_layers_kernel_0 {
    gpu.func @two_layers_kernel(%arg0: memref<256x256xf32>, %arg1: memref<1x256xf32>, %arg2: memref<1x256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
      %c4 = arith.constant 4 : index
      %cst = arith.constant dense<0.000000e+00> : vector<4xf32>
      %c128 = arith.constant 128 : index
      %cst_0 = arith.constant 0.000000e+00 : f32
      %c0 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map()[%block_id_x]
      %subview = memref.subview %arg0[%0, 0] [4, 256] [1, 1] : memref<256x256xf32> to memref<4x256xf32, strided<[256, 1], offset: ?>>
      %subview_1 = memref.subview %arg1[0, %0] [1, 4] [1, 1] : memref<1x256xf32> to memref<1x4xf32, strided<[256, 1], offset: ?>>
      %thread_id_x = gpu.thread_id  x
      %1 = affine.apply #map1()[%thread_id_x]
      %2 = gpu.lane_id
      %subview_2 = memref.subview %subview[%1, 0] [1, 256] [1, 1] : memref<4x256xf32, strided<[256, 1], offset: ?>> to memref<1x256xf32, strided<[256, 1], offset: ?>>
      %subview_3 = memref.subview %subview_1[0, %1] [1, 1] [1, 1] : memref<1x4xf32, strided<[256, 1], offset: ?>> to memref<1x1xf32, strided<[256, 1], offset: ?>>
      %3 = arith.muli %2, %c4 : index
      %4 = vector.load %arg2[%c0, %3] : memref<1x256xf32>, vector<4xf32>
      %5 = vector.load %subview_2[%c0, %3] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
      %6 = arith.mulf %4, %5 : vector<4xf32>
      %7 = arith.addf %6, %cst : vector<4xf32>
      %8 = arith.addi %3, %c128 : index
      %9 = vector.load %arg2[%c0, %8] : memref<1x256xf32>, vector<4xf32>
      %10 = vector.load %subview_2[%c0, %8] : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
      %11 = arith.mulf %9, %10 : vector<4xf32>
      %12 = arith.addf %7, %11 : vector<4xf32>
      %13 = vector.reduction <add>, %12 : vector<4xf32> into f32
      %14 = gpu.subgroup_reduce  add %13 uniform : (f32) -> f32
      %15 = arith.addf %14, %cst_0 : f32
      memref.store %15, %subview_3[%c0, %c0] : memref<1x1xf32, strided<[256, 1], offset: ?>>
      gpu.barrier
      gpu.return
    }
  }
}


// -----

// Kernels that differ (here: the block size they were outlined for) are
// kept apart.
// CHECK-LABEL: func.func @different
// CHECK: gpu.launch_func @a::@k
// CHECK: gpu.launch_func @b::@k
// CHECK: gpu.module @a
// CHECK: gpu.module @b
module attributes {gpu.container_module} {
  func.func @different(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @b::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @a {
    gpu.func @k(%m: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @k(%m: memref<4xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}
