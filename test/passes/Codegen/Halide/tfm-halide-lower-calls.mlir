// RUN: tfmc-opt %s -split-input-file -tfm-halide-lower-calls | FileCheck %s

// A call on buffers fills a table on the stack, in the kernel's argument
// order (a buffer: 1, the address of its first element, element bytes,
// rank, sizes, strides; an index: 0, its value), and hands it to the
// runtime's adapter with the kernel's NAME_argv and NAME_metadata. The
// description moves to the module's dictionary.
// CHECK: module attributes {tfm_halide.kernels = {rope_0 = "{\22kernels\22: [{\22kind\22: \22positional\22,
// CHECK-NOT: tfm_halide.kernel
// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %[[X:.*]]: memref<1x4x16xf32, strided<[128, 16, 1], offset: 32>>, %[[POS:.*]]: index, %[[Y:.*]]: memref<1x4x16xf32>)
// CHECK: %[[TABLE:.*]] = memref.alloca() : memref<23xi64>
// CHECK: memref.store %{{.*}}, %[[TABLE]][%{{.*}}] : memref<23xi64>
// CHECK: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:3, %{{.*}}:3 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFFSET]], %c4
// CHECK: arith.addi %[[BASE]], %[[BYTES]]
// CHECK: %[[P:.*]] = arith.index_cast %[[POS]] : index to i64
// CHECK: memref.store %[[P]], %[[TABLE]]
// CHECK: %[[ARGV:.*]] = llvm.mlir.addressof @rope_0_argv : !llvm.ptr
// CHECK: %[[META:.*]] = llvm.mlir.addressof @rope_0_metadata : !llvm.ptr
// CHECK: call @tfmrt_halide_call(%[[ARGV]], %[[META]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-NOT: tfm_halide.call
// CHECK: llvm.func @rope_0_argv(!llvm.ptr) -> i32
// CHECK: llvm.func @rope_0_metadata() -> !llvm.ptr
// CHECK: func.func private @tfmrt_halide_call(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
module {
  tfm_halide.kernel @rope_0 {kind = "positional", description = "{\22kernels\22: [{\22kind\22: \22positional\22, \22name\22: \22rope_0\22, \22target\22: {\22features\22: [\22avx2\22]}, \22op\22: \22rope\22, \22rows\22: 1, \22heads\22: 4, \22head_dim\22: 16}]}"}
  func.func @decode(%x: memref<1x4x16xf32, strided<[128, 16, 1], offset: 32>>, %pos: index, %y: memref<1x4x16xf32>) {
    tfm_halide.call @rope_0(%x, %pos : memref<1x4x16xf32, strided<[128, 16, 1], offset: 32>>, index) outs(%y : memref<1x4x16xf32>)
    return
  }
}

// -----

// A module without Halide kernels is left as it is.
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: tfmrt_halide_call
// CHECK-NOT: tfm_halide.kernels
module {
  func.func @plain(%x: memref<4xf32>) {
    return
  }
}
