// RUN: tfmc-opt %s -tfm-skip-unread-logits -split-input-file -verify-diagnostics | FileCheck %s

// After the last use of the cache, what only the logits need runs under
// count != 0: the read whose result feeds a guarded store, the loop, the
// copy into the logits buffer. The allocation that followed the first
// guarded op moves before the guard; the deallocations stay after it.
// CHECK-LABEL: func.func @prefill
// CHECK-SAME: (%[[COUNT:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<count>}, %[[CACHE:[a-z0-9]+]]: memref<4x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}, %[[X:[a-z0-9]+]]: memref<8xf32>, %[[LOGITS:[a-z0-9]+]]: memref<8xf32>)
// CHECK: memref.subview %[[CACHE]]
// CHECK: memref.store
// CHECK: %[[HIDDEN:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[WANTED:.*]] = arith.cmpi ne, %[[COUNT]], %{{.*}} : index
// CHECK: scf.if %[[WANTED]] {
// CHECK:   memref.load %[[X]]
// CHECK:   memref.store %{{.*}}, %[[HIDDEN]]
// CHECK:   scf.for
// CHECK:   memref.copy %[[OUT]], %[[LOGITS]]
// CHECK: }
// CHECK: memref.dealloc %[[HIDDEN]]
// CHECK: memref.dealloc %[[OUT]]
// CHECK: return
func.func @prefill(%count: index {tfm.entry_arg = #tfm.entry_arg<count>}, %cache: memref<4x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}, %x: memref<8xf32>, %logits: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %row = memref.subview %cache[1, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  %v = memref.load %x[%c0] : memref<8xf32>
  memref.store %v, %row[%c0] : memref<8xf32, strided<[1], offset: 8>>
  %hidden = memref.alloc() : memref<8xf32>
  %y = memref.load %x[%c1] : memref<8xf32>
  memref.store %y, %hidden[%c0] : memref<8xf32>
  %out = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %h = memref.load %hidden[%c0] : memref<8xf32>
    memref.store %h, %out[%i] : memref<8xf32>
  }
  memref.copy %out, %logits : memref<8xf32> to memref<8xf32>
  memref.dealloc %hidden : memref<8xf32>
  memref.dealloc %out : memref<8xf32>
  return
}

// -----

// Decode carries no marks: it always computes its logits.
// CHECK-LABEL: func.func @decode
// CHECK-NOT: scf.if
func.func @decode(%cache: memref<4x8xf32>, %logits: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %cache[%c0, %c0] : memref<4x8xf32>
  memref.store %v, %logits[%c0] : memref<8xf32>
  return
}

// -----

// expected-error @+1 {{marks a count argument but no kv_cache argument}}
func.func @no_cache(%count: index {tfm.entry_arg = #tfm.entry_arg<count>}, %logits: memref<8xf32>) {
  return
}

// -----

// expected-error @+1 {{computes nothing after its last use of the kv_cache argument: count 0 cannot skip the logits}}
func.func @cache_used_last(%count: index {tfm.entry_arg = #tfm.entry_arg<count>}, %cache: memref<8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}, %logits: memref<8xf32>) {
  memref.copy %logits, %cache : memref<8xf32> to memref<8xf32>
  return
}

// -----

func.func @sized_by_logits(%count: index {tfm.entry_arg = #tfm.entry_arg<count>}, %cache: memref<4xindex> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}, %logits: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  memref.store %c1, %cache[%c0] : memref<4xindex>
  %n = memref.load %logits[%c0] : memref<8xf32>
  %i = arith.fptoui %n : f32 to i32
  %size = arith.index_cast %i : i32 to index
  // expected-error @+1 {{uses a result of the logits computation, which tfm-skip-unread-logits must guard}}
  %buffer = memref.alloc(%size) : memref<?xf32>
  memref.dealloc %buffer : memref<?xf32>
  return
}

// -----

// expected-error @+1 {{must have a single-block body to guard its logits}}
func.func private @declared(%count: index {tfm.entry_arg = #tfm.entry_arg<count>}, %cache: memref<8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}, %logits: memref<8xf32>)
