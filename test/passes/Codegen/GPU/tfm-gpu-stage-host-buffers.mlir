// RUN: tfmc-opt %s -split-input-file -allow-unregistered-dialect -tfm-gpu-stage-host-buffers | FileCheck %s

// A prefill: its token ids are copied in first, its logits written to a
// device buffer and copied out last, only when `count` asks for them.
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME: %[[TOKENS:[a-z0-9]+]]: memref<8xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}
// CHECK-SAME: %[[COUNT:[a-z0-9]+]]: index {tfm.entry_arg = #tfm.entry_arg<count>}
// CHECK-SAME: %[[LOGITS:[a-z0-9]+]]: memref<1x16xf32>)
// CHECK: %[[DEVICE_TOKENS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xi32>
// CHECK: memref.copy %[[TOKENS]], %[[DEVICE_TOKENS]]
// CHECK: %[[DEVICE_LOGITS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x16xf32>
// CHECK: "test.kernel"(%[[DEVICE_TOKENS]], %[[DEVICE_LOGITS]])
// CHECK: %[[WANTED:.*]] = arith.cmpi ne, %[[COUNT]], %{{.*}}
// CHECK: scf.if %[[WANTED]] {
// CHECK-NEXT: memref.copy %[[DEVICE_LOGITS]], %[[LOGITS]]
// CHECK: return
func.func @prefill(%tokens: memref<8xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>},
                   %count: index {tfm.entry_arg = #tfm.entry_arg<count>},
                   %logits: memref<1x16xf32>) {
  "test.kernel"(%tokens, %logits) : (memref<8xi32>, memref<1x16xf32>) -> ()
  return
}

// -----

// Without `count` (a decode, an encoder) every output is copied out; the
// cache and the weights are device memory already.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: memref<64xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
// CHECK-SAME: %[[HIDDEN:[a-z0-9]+]]: memref<4xf32>, %[[LOGITS:[a-z0-9]+]]: memref<16xf32>)
// CHECK-NOT: memref.copy %[[CACHE]]
// CHECK: %[[DEVICE_HIDDEN:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: %[[DEVICE_LOGITS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
// CHECK: "test.kernel"(%[[CACHE]], %[[DEVICE_HIDDEN]], %[[DEVICE_LOGITS]])
// CHECK-NOT: scf.if
// CHECK: memref.copy %[[DEVICE_HIDDEN]], %[[HIDDEN]]
// CHECK-NEXT: memref.copy %[[DEVICE_LOGITS]], %[[LOGITS]]
// CHECK-NEXT: return
func.func @decode(%token: memref<1xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>},
                  %cache: memref<64xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>},
                  %hidden: memref<4xf32>, %logits: memref<16xf32>) {
  "test.kernel"(%cache, %hidden, %logits) : (memref<64xf32>, memref<4xf32>, memref<16xf32>) -> ()
  return
}

// -----

// A function without marks is not an entry: its arguments are device
// buffers already.
// CHECK-LABEL: func.func @helper(
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
func.func @helper(%buffer: memref<16xf32>) {
  "test.kernel"(%buffer) : (memref<16xf32>) -> ()
  return
}
