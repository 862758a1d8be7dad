// RUN: tfmc-opt %s -tfm-lower-strided-copies | FileCheck %s

// CHECK-LABEL: func.func @copies
func.func @copies(%src: memref<2x8xf32>, %dst: memref<4x2x4xf32>, %flat: memref<2x8xf32>) {
  %view = memref.subview %src[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  %row = memref.subview %dst[1, 0, 0] [1, 2, 4] [1, 1, 1] : memref<4x2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 8>>
  // A strided source: loops instead of the C runner's memrefCopy.
  // CHECK: linalg.copy ins(%{{.*}} : memref<2x4xf32, strided<[8, 1], offset: 4>>)
  memref.copy %view, %row : memref<2x4xf32, strided<[8, 1], offset: 4>> to memref<2x4xf32, strided<[4, 1], offset: 8>>
  // Contiguous copies stay memcpy-able.
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<2x8xf32> to memref<2x8xf32>
  memref.copy %src, %flat : memref<2x8xf32> to memref<2x8xf32>
  return
}
