// RUN: tfmc-opt %s -split-input-file -tfm-gpu-merge-kernel-modules | FileCheck %s
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-merge-kernel-modules=name=kernels | FileCheck %s --check-prefix=NAMED

// Outlining names every kernel after its entry and uniques the modules:
// in the one module each kernel takes its module's name, any other
// symbol (a global the kernel reads) that name as a prefix, and the
// launches follow.
// CHECK-LABEL: func.func @decode
// CHECK: gpu.launch_func @tfm_kernels::@decode_kernel blocks
// CHECK: gpu.launch_func @tfm_kernels::@decode_kernel_0 blocks
// CHECK: gpu.module @tfm_kernels {
// CHECK:   gpu.func @decode_kernel(
// CHECK:   memref.global "private" constant @decode_kernel_0_table
// CHECK:   gpu.func @decode_kernel_0(
// CHECK:     memref.get_global @decode_kernel_0_table
// CHECK: }
// CHECK-NOT: gpu.module
// NAMED: gpu.launch_func @kernels::@decode_kernel blocks
// NAMED: gpu.module @kernels {
module attributes {gpu.container_module} {
  func.func @decode(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @decode_kernel::@decode_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @decode_kernel_0::@decode_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @decode_kernel {
    gpu.func @decode_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @decode_kernel_0 {
    memref.global "private" constant @table : memref<4xf32> = dense<1.0>
    gpu.func @decode_kernel(%m: memref<4xf32>) kernel {
      %t = memref.get_global @table : memref<4xf32>
      memref.copy %t, %m : memref<4xf32> to memref<4xf32>
      gpu.return
    }
  }
}

// -----

// Outlining puts the kernel before the globals it reads: its reference
// follows the global's new name all the same.
// CHECK-LABEL: func.func @prefill
// CHECK: gpu.module @tfm_kernels {
// CHECK:   gpu.func @prefill_kernel(
// CHECK:     memref.get_global @prefill_kernel___constant_8xf32
// CHECK:   memref.global "private" constant @prefill_kernel___constant_8xf32
module attributes {gpu.container_module} {
  func.func @prefill(%m: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @prefill_kernel::@prefill_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>)
    return
  }
  gpu.module @prefill_kernel {
    gpu.func @prefill_kernel(%m: memref<8xf32>) kernel {
      %t = memref.get_global @__constant_8xf32 : memref<8xf32>
      memref.copy %t, %m : memref<8xf32> to memref<8xf32>
      gpu.return
    }
    memref.global "private" constant @__constant_8xf32 : memref<8xf32> = dense<1.0>
  }
}
