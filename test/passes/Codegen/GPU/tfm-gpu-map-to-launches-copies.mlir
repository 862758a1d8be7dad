// RUN: tfmc-opt %s -split-input-file -tfm-gpu-map-to-launches | FileCheck %s

// A copy between contiguous buffers is a gpu.memcpy of their bytes.
// CHECK-LABEL: func.func @contiguous
// CHECK: gpu.memcpy %arg1, %arg0 : memref<4x8xf32>, memref<4x8xf32>
// CHECK-NOT: gpu.launch
func.func @contiguous(%source: memref<4x8xf32>, %target: memref<4x8xf32>) {
  memref.copy %source, %target : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// Into a strided view (RoPE's even columns) it is a kernel of one thread
// per element: 32 * 4 * 8 = 1024 elements, 4 blocks of 256 threads, each
// thread its element's indices; the view is passed with a dynamic offset.
// CHECK-LABEL: func.func @strided
// CHECK: %[[EVEN:.*]] = memref.subview %arg1[0, 0, 0] [32, 4, 8] [1, 1, 2]
// CHECK: %[[TARGET:.*]] = memref.cast %[[EVEN]] : memref<32x4x8xf32, strided<[64, 16, 2]>> to memref<32x4x8xf32, strided<[64, 16, 2], offset: ?>>
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads
// CHECK:   %[[BLOCK:.*]] = gpu.block_id x
// CHECK:   %[[THREAD:.*]] = gpu.thread_id x
// CHECK:   %[[IN_RANGE:.*]] = arith.cmpi ult
// CHECK:   scf.if %[[IN_RANGE]] {
// CHECK:     %[[INDICES:.*]]:3 = affine.delinearize_index %{{.*}} into (32, 4, 8)
// CHECK:     %[[ELEMENT:.*]] = memref.load %arg0[%[[INDICES]]#0, %[[INDICES]]#1, %[[INDICES]]#2]
// CHECK:     memref.store %[[ELEMENT]], %[[TARGET]][%[[INDICES]]#0, %[[INDICES]]#1, %[[INDICES]]#2]
// CHECK:   gpu.terminator
// CHECK-NOT: gpu.memcpy
func.func @strided(%source: memref<32x4x8xf32>, %target: memref<32x4x16xf32>) {
  %even = memref.subview %target[0, 0, 0] [32, 4, 8] [1, 1, 2] : memref<32x4x16xf32> to memref<32x4x8xf32, strided<[64, 16, 2]>>
  memref.copy %source, %even : memref<32x4x8xf32> to memref<32x4x8xf32, strided<[64, 16, 2]>>
  return
}

// -----

// A contiguous view at an offset (a single KV head's slice of a layer's
// cache) is a kernel too: gpu.memcpy's lowering ignores the offset.
// CHECK-LABEL: func.func @offset
// CHECK: gpu.launch
// CHECK:   affine.delinearize_index %{{.*}} into (1, 32, 16)
// CHECK-NOT: gpu.memcpy
func.func @offset(%source: memref<1x32x16xf32>, %cache: memref<2x1x256x16xf32>) {
  %layer = memref.subview %cache[1, 0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : memref<2x1x256x16xf32> to memref<1x32x16xf32, strided<[4096, 16, 1], offset: 4096>>
  memref.copy %source, %layer : memref<1x32x16xf32> to memref<1x32x16xf32, strided<[4096, 16, 1], offset: 4096>>
  return
}

// -----

// A copy of a dynamic size (Mistral's ring cache takes the rows the window
// leaves): the grid is computed from the sizes on the host (at least one
// block), the kernel delinearizes with the sizes of the descriptor.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[ROWS:.*]] = memref.dim %arg0, %c1
// CHECK: %[[GRID:.*]] = arith.maxui %{{.*}}, %{{.*}}
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK:   %[[KERNEL_ROWS:.*]] = memref.dim %{{.*}}, %{{.*}}
// CHECK:   affine.delinearize_index %{{.*}} into (2, %[[KERNEL_ROWS]], 16)
// CHECK-NOT: gpu.memcpy
func.func @dynamic(%source: memref<2x?x16xf32, strided<[512, 16, 1]>>, %target: memref<2x?x16xf32, strided<[1008, 16, 1], offset: ?>>) {
  memref.copy %source, %target : memref<2x?x16xf32, strided<[512, 16, 1]>> to memref<2x?x16xf32, strided<[1008, 16, 1], offset: ?>>
  return
}
