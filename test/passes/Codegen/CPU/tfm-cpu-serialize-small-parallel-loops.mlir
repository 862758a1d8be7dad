// RUN: tfmc-opt %s -tfm-cpu-serialize-small-parallel-loops=min-work=1000 -split-input-file | FileCheck %s

// 4 x 16 iterations: not worth forking threads for.
// CHECK-LABEL: func.func @small
func.func @small(%m: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 1.0 : f32
  // CHECK-NOT: scf.parallel
  // CHECK: scf.for %[[I:.*]] =
  // CHECK: scf.for %[[J:.*]] =
  // CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    memref.store %f, %m[%i, %j] : memref<4x16xf32>
    scf.reduce
  }
  return
}

// -----

// 64 rows, each a 64-long reduction: 4096 innermost iterations, kept parallel.
// CHECK-LABEL: func.func @large
func.func @large(%x: memref<64x64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // CHECK: scf.parallel
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %k] : memref<64x64xf32>
      memref.store %v, %out[%i] : memref<64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A parallel loop nested in a (large) parallel loop runs on the outer loop's
// threads: it becomes sequential, the outer one stays parallel.
// CHECK-LABEL: func.func @nested
func.func @nested(%p: memref<64x64xf32>, %v: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // CHECK: scf.parallel
  // CHECK: scf.for
  // CHECK-NEXT: scf.for
  // CHECK-NOT: scf.parallel
  // CHECK: return
  scf.parallel (%h) = (%c0) to (%c64) step (%c1) {
    scf.for %t = %c0 to %c64 step %c1 {
      scf.parallel (%d) = (%c0) to (%c64) step (%c1) {
        %a = memref.load %p[%h, %t] : memref<64x64xf32>
        %b = memref.load %v[%t, %d] : memref<64x64xf32>
        %c = memref.load %out[%h, %d] : memref<64x64xf32>
        %m = arith.mulf %a, %b : f32
        %s = arith.addf %c, %m : f32
        memref.store %s, %out[%h, %d] : memref<64x64xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// A body with a loop of unknown trip count (attention over the cached keys)
// is unbounded work, however few the parallel iterations: 8 heads and 32 x
// 12 (query row, head) pairs both stay parallel. (The work estimate once
// overflowed for these counts and serialised them.)
// CHECK-LABEL: func.func @unknown_work
func.func @unknown_work(%keys: index, %out: memref<32x12xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  // CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}})
  scf.parallel (%h) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %keys step %c1 {
      memref.store %f, %out[%c0, %h] : memref<32x12xf32>
    }
    scf.reduce
  }
  // CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}})
  scf.parallel (%s, %h) = (%c0, %c0) to (%c32, %c12) step (%c1, %c1) {
    scf.for %k = %c0 to %keys step %c1 {
      memref.store %f, %out[%s, %h] : memref<32x12xf32>
    }
    scf.reduce
  }
  return
}

// -----

// 4 iterations, each a 256-lane vector read: 4 x (1 + 256) units of work,
// kept parallel. Counting iterations alone (4) would serialise it.
// CHECK-LABEL: func.func @vector_lanes
func.func @vector_lanes(%m: memref<4x256xf32>, %out: memref<4x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 0.0 : f32
  // CHECK: scf.parallel
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = vector.transfer_read %m[%i, %c0], %f {in_bounds = [true]} : memref<4x256xf32>, vector<256xf32>
    vector.transfer_write %v, %out[%i, %c0] {in_bounds = [true]} : vector<256xf32>, memref<4x256xf32>
    scf.reduce
  }
  return
}
