// RUN: tfmc-opt %s -tfm-cpu-plan-memory -split-input-file -allow-unregistered-dialect | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-plan-memory=place-buffers=false -split-input-file -allow-unregistered-dialect | FileCheck %s --check-prefix=UNPLACED

// %a and %b are alive at the same time, so they get different bytes; %c is
// allocated after both are freed and reuses offset 0. The entry takes the
// caller's scratch as a new last argument, as large as the largest set of
// buffers alive together (1024 + 512 bytes); no static storage is left.
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @layers
// CHECK-SAME: %[[SCRATCH:[^:]*]]: memref<1536xi8> {llvm.align = 64 : i64, llvm.dereferenceable = 1536 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}
// CHECK: %[[A:.*]] = memref.view %[[SCRATCH]][%c0{{.*}}][] : memref<1536xi8> to memref<256xf32>
// CHECK: %[[B:.*]] = memref.view %[[SCRATCH]][%c1024{{.*}}][] : memref<1536xi8> to memref<128xf32>
// CHECK: %[[C:.*]] = memref.view %[[SCRATCH]][%c0{{.*}}][] : memref<1536xi8> to memref<64xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// With place-buffers=false the entry only gets an empty scratch.
// UNPLACED-LABEL: func.func @layers
// UNPLACED-SAME: memref<0xi8> {llvm.align = 64 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}
// UNPLACED-COUNT-3: memref.alloc()
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
// stay with the allocator; an entry with nothing to place still takes a
// scratch argument (empty), so that every entry has the same convention.
// CHECK-LABEL: func.func @unplanned
// CHECK-SAME: memref<0xi8> {llvm.align = 64 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}
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

// -----

// Every public definition is an entry, whatever it is called (prefill,
// decode, encode): each gets its own plan in its own scratch argument. A
// private function is no entry: its callers have no scratch to give it, so
// its buffers stay with the allocator and its signature is unchanged.
// CHECK-LABEL: func.func @encode
// CHECK-SAME: memref<256xi8> {{.*}}#tfm.entry_arg<scratch>
// CHECK: memref.view
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{[^:]*}}: memref<8xf32>)
// CHECK: memref.alloc()
// CHECK: memref.dealloc
func.func @encode(%x: memref<8xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  "test.use"(%a, %x) : (memref<64xf32>, memref<8xf32>) -> ()
  memref.dealloc %a : memref<64xf32>
  return
}
func.func private @helper(%x: memref<8xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
  "test.use"(%a, %x) : (memref<32xf32>, memref<8xf32>) -> ()
  memref.dealloc %a : memref<32xf32>
  return
}
