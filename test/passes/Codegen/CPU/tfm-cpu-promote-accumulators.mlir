// RUN: tfmc-opt %s -tfm-cpu-promote-accumulators -split-input-file | FileCheck %s

// A matmul-style reduction: the output element is carried in a register.
// CHECK-LABEL: func.func @dot_rows
func.func @dot_rows(%x: memref<4x8xf32>, %w: memref<2x8xf32>, %out: memref<4x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%s, %o) = (%c0, %c0) to (%c4, %c2) step (%c1, %c1) {
    // CHECK: %[[INIT:.*]] = memref.load %{{.*}}[%[[S:.*]], %[[O:.*]]] : memref<4x2xf32>
    // CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
    // CHECK-NOT: memref.store
    // CHECK: arith.addf %[[ACC]]
    // CHECK: scf.yield
    // CHECK: memref.store %[[SUM]], %{{.*}}[%[[S]], %[[O]]]
    scf.for %k = %c0 to %c8 step %c1 {
      %a = memref.load %x[%s, %k] : memref<4x8xf32>
      %b = memref.load %w[%o, %k] : memref<2x8xf32>
      %acc = memref.load %out[%s, %o] : memref<4x2xf32>
      %p = arith.mulf %a, %b : f32
      %r = arith.addf %acc, %p : f32
      memref.store %r, %out[%s, %o] : memref<4x2xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Another view of the output buffer is read in the loop: it may alias the
// accumulator, so nothing changes.
// CHECK-LABEL: func.func @aliasing_read
func.func @aliasing_read(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %view = memref.subview %out[0] [8] [1] : memref<8xf32> to memref<8xf32, strided<[1]>>
  // CHECK: scf.for
  // CHECK-NOT: iter_args
  // CHECK: memref.store
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %view[%k] : memref<8xf32, strided<[1]>>
    %acc = memref.load %out[%c0] : memref<8xf32>
    %r = arith.addf %acc, %v : f32
    memref.store %r, %out[%c0] : memref<8xf32>
  }
  return
}

// -----

// The stored element moves with the loop: not an accumulator.
// CHECK-LABEL: func.func @varying_index
func.func @varying_index(%in: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // CHECK: scf.for
  // CHECK-NOT: iter_args
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %in[%k] : memref<8xf32>
    memref.store %v, %out[%k] : memref<8xf32>
  }
  return
}
