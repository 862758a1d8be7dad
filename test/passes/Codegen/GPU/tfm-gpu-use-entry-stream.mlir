// RUN: tfmc-opt %s -split-input-file -tfm-gpu-use-entry-stream | FileCheck %s

// The stream the entry created is the one it takes: its creation and
// destruction go, the synchronisation stays.
// CHECK-LABEL: llvm.func @decode(
// CHECK-SAME: %{{.*}}: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>},
// CHECK-SAME: %[[STREAM:.*]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<stream>})
// CHECK-NOT: mgpuStreamCreate
// CHECK: llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK-NOT: mgpuStreamDestroy
// CHECK: llvm.return
// The declarations nothing calls are gone.
// CHECK-NOT: llvm.func @mgpuStreamCreate
// CHECK-NOT: llvm.func @mgpuStreamDestroy
module {
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuMemcpy(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @decode(%weights: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>}) {
    %bytes = llvm.mlir.constant(64 : i64) : i64
    %stream = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    llvm.call @mgpuMemcpy(%weights, %weights, %bytes, %stream) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%stream) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%stream) : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

// An entry that launches nothing still takes the ABI's stream; a function
// without marks is no entry.
// CHECK-LABEL: llvm.func @encode(
// CHECK-SAME: %{{.*}}: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<tokens>},
// CHECK-SAME: %{{.*}}: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<stream>})
// CHECK-LABEL: llvm.func @helper(
// CHECK-SAME: %{{.*}}: !llvm.ptr)
module {
  llvm.func @encode(%tokens: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<tokens>}) {
    llvm.return
  }
  llvm.func @helper(%buffer: !llvm.ptr) {
    llvm.return
  }
}

// -----

// Work that gpu-async-region put on streams of its own (inside an scf.if)
// goes to the caller's stream too, in the order the host queues it.
// CHECK-LABEL: llvm.func @prefill(
// CHECK-SAME: %[[STREAM:[a-z0-9]+]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<stream>})
// CHECK: llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK: llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK-NOT: mgpuStream{{Create|Destroy}}
module {
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuMemcpy(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @prefill(%weights: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>}, %wanted: i1) {
    %bytes = llvm.mlir.constant(64 : i64) : i64
    %main = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    llvm.call @mgpuMemcpy(%weights, %weights, %bytes, %main) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%main) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%main) : (!llvm.ptr) -> ()
    llvm.cond_br %wanted, ^copy, ^done
  ^copy:
    %inner = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    llvm.call @mgpuMemcpy(%weights, %weights, %bytes, %inner) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%inner) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%inner) : (!llvm.ptr) -> ()
    llvm.br ^done
  ^done:
    llvm.return
  }
}
