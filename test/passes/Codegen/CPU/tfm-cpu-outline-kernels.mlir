// RUN: tfmc-opt %s -tfm-cpu-outline-kernels -split-input-file | FileCheck %s

// Each loop nest becomes a kernel, which LLVM must not inline again. The
// views of the weights blob and the scratch stay in the entry and are the
// kernels' arguments; the constants are copied into the kernels that read
// them.
// CHECK-LABEL: func.func @two_layers(
// CHECK-SAME: %[[BLOB:.*]]: memref<4096xi8>, %[[SCRATCH:.*]]: memref<64xi8>)
// CHECK: %[[X:.*]] = memref.view %[[SCRATCH]]
// CHECK: %[[W0:.*]] = memref.view %[[BLOB]]
// CHECK: call @two_layers_kernel_0(%[[W0]], %[[X]]) : (memref<16xf32>, memref<16xf32>) -> ()
// CHECK: %[[W1:.*]] = memref.view %[[BLOB]]
// CHECK: call @two_layers_kernel_1(%[[W1]], %[[X]])
// CHECK-NOT: scf.for
// CHECK: return
// CHECK: func.func private @two_layers_kernel_1(%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>) attributes {passthrough = ["noinline"], tfm_cpu.kernel}
// CHECK: func.func private @two_layers_kernel_0(%[[W:.*]]: memref<16xf32>, %[[Y:.*]]: memref<16xf32>) attributes {passthrough = ["noinline"], tfm_cpu.kernel}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C16]]
// CHECK: memref.load %[[W]][%[[I]]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]]]
// CHECK: return
func.func @two_layers(%blob: memref<4096xi8>, %scratch: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %x = memref.view %scratch[%c0][] : memref<64xi8> to memref<16xf32>
  %w0 = memref.view %blob[%c0][] : memref<4096xi8> to memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %a = memref.load %w0[%i] : memref<16xf32>
    %b = memref.load %x[%i] : memref<16xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %x[%i] : memref<16xf32>
  }
  %w1 = memref.view %blob[%c1024][] : memref<4096xi8> to memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %a = memref.load %w1[%i] : memref<16xf32>
    %b = memref.load %x[%i] : memref<16xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %x[%i] : memref<16xf32>
  }
  return
}

// -----

// The straight-line code before a loop nest is part of its kernel; a value
// the entry reads after the kernel is the kernel's result. Code after the
// last loop nest stays in the entry.
// CHECK-LABEL: func.func @prologue(
// CHECK: %[[V:.*]] = call @prologue_kernel_0(%{{.*}}) : (memref<16xf32>) -> vector<16xf32>
// CHECK: vector.transfer_write %[[V]]
// CHECK: return
// CHECK: func.func private @prologue_kernel_0(
// CHECK: %[[READ:.*]] = vector.transfer_read
// CHECK: %[[SQRT:.*]] = math.sqrt %[[READ]]
// CHECK: vector.transfer_write %[[SQRT]]
// CHECK: scf.for
// CHECK: return %[[SQRT]] : vector<16xf32>
func.func @prologue(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %x[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %r = math.sqrt %v : vector<16xf32>
  vector.transfer_write %r, %x[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %a = memref.load %x[%i] : memref<16xf32>
    %s = arith.addf %a, %a : f32
    memref.store %s, %x[%i] : memref<16xf32>
  }
  vector.transfer_write %r, %x[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}

// -----

// A cache slice (a static offset in a strided layout, a dynamic length)
// goes as its base buffer, offset and length; the kernel rebuilds it at a
// dynamic offset, and the views it takes of it follow. The slices of both
// layers then have one type.
// CHECK-LABEL: func.func @cache_slices(
// CHECK-SAME: %[[CACHE:.*]]: memref<2x8x4xf32>, %[[LENGTH:.*]]: index
// CHECK: %[[S0:.*]] = memref.subview %[[CACHE]][0, 0, 0]
// CHECK: %[[BASE0:.*]], %[[OFFSET0:.*]], %[[SIZES0:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata %[[S0]]
// CHECK: call @cache_slices_kernel_0(%[[LENGTH]], %[[BASE0]], %[[OFFSET0]], %[[SIZES0]]#0) : (index, memref<f32>, index, index) -> ()
// CHECK: %[[S1:.*]] = memref.subview %[[CACHE]][1, 0, 0]
// CHECK: %[[BASE1:.*]], %[[OFFSET1:.*]], %[[SIZES1:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata %[[S1]]
// CHECK: call @cache_slices_kernel_1(%[[LENGTH]], %[[BASE1]], %[[OFFSET1]], %[[SIZES1]]#0) : (index, memref<f32>, index, index) -> ()
// CHECK: func.func private @cache_slices_kernel_1(%{{.*}}: index, %{{.*}}: memref<f32>, %{{.*}}: index, %{{.*}}: index)
// CHECK: func.func private @cache_slices_kernel_0(%[[N:.*]]: index, %[[B:.*]]: memref<f32>, %[[O:.*]]: index, %[[SIZE:.*]]: index)
// CHECK: %[[SLICE:.*]] = memref.reinterpret_cast %[[B]] to offset: [%[[O]]], sizes: [%[[SIZE]], 4], strides: [4, 1] : memref<f32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]]
// CHECK: memref.subview %[[SLICE]][%[[I]], 0] [1, 4] [1, 1] : memref<?x4xf32, strided<[4, 1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
func.func @cache_slices(%cache: memref<2x8x4xf32>, %length: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s0 = memref.subview %cache[0, 0, 0] [1, %length, 4] [1, 1, 1] : memref<2x8x4xf32> to memref<?x4xf32, strided<[4, 1]>>
  scf.for %i = %c0 to %length step %c1 {
    %row = memref.subview %s0[%i, 0] [1, 4] [1, 1] : memref<?x4xf32, strided<[4, 1]>> to memref<4xf32, strided<[1], offset: ?>>
    memref.store %zero, %row[%c0] : memref<4xf32, strided<[1], offset: ?>>
  }
  %s1 = memref.subview %cache[1, 0, 0] [1, %length, 4] [1, 1, 1] : memref<2x8x4xf32> to memref<?x4xf32, strided<[4, 1], offset: 32>>
  scf.for %i = %c0 to %length step %c1 {
    %row = memref.subview %s1[%i, 0] [1, 4] [1, 1] : memref<?x4xf32, strided<[4, 1], offset: 32>> to memref<4xf32, strided<[1], offset: ?>>
    memref.store %zero, %row[%c0] : memref<4xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// Allocations and deallocations stay in the entry, and a deallocation ends
// the kernel being gathered: the loop after it is a kernel of its own.
// CHECK-LABEL: func.func @deallocation(
// CHECK: %[[BUFFER:.*]] = memref.alloc() : memref<16xf32>
// CHECK: call @deallocation_kernel_0(%{{.*}}, %[[BUFFER]])
// CHECK: memref.load %[[BUFFER]]
// CHECK: memref.dealloc %[[BUFFER]]
// CHECK: call @deallocation_kernel_1(
// CHECK: return
func.func @deallocation(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %buffer = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %a = memref.load %x[%i] : memref<16xf32>
    memref.store %a, %buffer[%i] : memref<16xf32>
  }
  %a = memref.load %buffer[%c0] : memref<16xf32>
  memref.dealloc %buffer : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %a, %x[%i] : memref<16xf32>
  }
  return
}

// -----

// A kernel that would return a memref (a view at an index the kernel
// loads) stays in the entry.
// CHECK-LABEL: func.func @memref_result(
// CHECK-NOT: call
// CHECK: scf.for
// CHECK: return
func.func @memref_result(%x: memref<16xf32>, %indices: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %start = memref.load %indices[%c0] : memref<1xindex>
  %window = memref.subview %x[%start] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %zero, %window[%i] : memref<4xf32, strided<[1], offset: ?>>
  }
  memref.store %zero, %window[%c0] : memref<4xf32, strided<[1], offset: ?>>
  return
}

// -----

// Straight-line code without a loop nest stays in the entry.
// CHECK-LABEL: func.func @straight_line(
// CHECK-NOT: call
// CHECK: memref.store
// CHECK: return
func.func @straight_line(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %x[%c0] : memref<16xf32>
  return
}
