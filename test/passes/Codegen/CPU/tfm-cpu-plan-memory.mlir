// RUN: tfmc-opt %s -tfm-cpu-plan-memory -split-input-file -allow-unregistered-dialect | FileCheck %s

// %a and %b are alive at the same time, so they get different bytes; %c is
// allocated after both are freed and reuses offset 0. The arena is as large
// as the largest set of buffers alive together (1024 + 512 bytes).
// CHECK: memref.global "private" @layers_arena : memref<1536xi8> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @layers
// CHECK: %[[ARENA:.*]] = memref.get_global @layers_arena : memref<1536xi8>
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<1536xi8> to memref<256xf32>
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%c1024{{.*}}][] : memref<1536xi8> to memref<128xf32>
// CHECK: %[[C:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<1536xi8> to memref<64xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
func.func @layers(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<128xf32>
  "test.use"(%a, %b, %x) : (memref<256xf32>, memref<128xf32>, memref<64xf32>) -> ()
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<128xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  "test.use"(%c, %out) : (memref<64xf32>, memref<64xf32>) -> ()
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// A buffer of dynamic size, and one that is never freed in the function,
// stay with the allocator.
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @unplanned
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
// CHECK: memref.dealloc
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<16xf32>
func.func @unplanned(%n: index) -> memref<16xf32> {
  %d = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  "test.use"(%d) : (memref<?xf32>) -> ()
  memref.dealloc %d : memref<?xf32>
  %kept = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  return %kept : memref<16xf32>
}
