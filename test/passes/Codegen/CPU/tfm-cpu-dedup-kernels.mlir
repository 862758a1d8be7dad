// RUN: tfmc-opt %s -tfm-cpu-dedup-kernels -split-input-file | FileCheck %s

// Two layers' equal kernels: the second's calls go to the first, and the
// second is erased.
// CHECK-LABEL: func.func @entry(
// CHECK: call @layer_0(%{{.*}}) : (memref<16xf32>) -> ()
// CHECK: call @layer_0(%{{.*}}) : (memref<16xf32>) -> ()
// CHECK: func.func private @layer_0(
// CHECK-NOT: func.func private @layer_1(
func.func @entry(%a: memref<16xf32>, %b: memref<16xf32>) {
  call @layer_0(%a) : (memref<16xf32>) -> ()
  call @layer_1(%b) : (memref<16xf32>) -> ()
  return
}
func.func private @layer_0(%x: memref<16xf32>) attributes {tfm_cpu.kernel} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[%c0] : memref<16xf32>
  return
}
func.func private @layer_1(%x: memref<16xf32>) attributes {tfm_cpu.kernel} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[%c0] : memref<16xf32>
  return
}

// -----

// Kernels that differ in a constant (a window, an epsilon) stay apart.
// CHECK-LABEL: func.func @entry(
// CHECK: call @layer_0(
// CHECK: call @layer_1(
// CHECK: func.func private @layer_0(
// CHECK: func.func private @layer_1(
func.func @entry(%a: memref<16xf32>) {
  call @layer_0(%a) : (memref<16xf32>) -> ()
  call @layer_1(%a) : (memref<16xf32>) -> ()
  return
}
func.func private @layer_0(%x: memref<16xf32>) attributes {tfm_cpu.kernel} {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  memref.store %v, %x[%c0] : memref<16xf32>
  return
}
func.func private @layer_1(%x: memref<16xf32>) attributes {tfm_cpu.kernel} {
  %c0 = arith.constant 0 : index
  %v = arith.constant 2.0 : f32
  memref.store %v, %x[%c0] : memref<16xf32>
  return
}

// -----

// Only kernels are merged: a function without tfm_cpu.kernel is kept.
// CHECK-LABEL: func.func @entry(
// CHECK: call @helper(
// CHECK: call @layer_0(
// CHECK: func.func private @helper(
// CHECK: func.func private @layer_0(
func.func @entry(%a: memref<16xf32>) {
  call @helper(%a) : (memref<16xf32>) -> ()
  call @layer_0(%a) : (memref<16xf32>) -> ()
  return
}
func.func private @helper(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[%c0] : memref<16xf32>
  return
}
func.func private @layer_0(%x: memref<16xf32>) attributes {tfm_cpu.kernel} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[%c0] : memref<16xf32>
  return
}
