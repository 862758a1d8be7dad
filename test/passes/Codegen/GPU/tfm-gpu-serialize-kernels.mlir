// REQUIRES: ptxas
// RUN: tfmc-opt %s --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),tfm-gpu-serialize-kernels{ptx=sm_80 cubin=sm_90 toolkit=%cuda_toolkit ptx-file=%t.ptx})" | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: tfmc-opt %s --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),tfm-gpu-serialize-kernels)" | FileCheck %s --check-prefix=TEXT

// One fatbin with the sm_80 PTX and an sm_90 cubin (what tfm-gpu-pipeline
// asks for), named after the oldest arch it runs on; ptx-file also writes
// the PTX.
// CHECK: gpu.binary @kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, "
// CHECK-NOT: gpu.module
// PTX: .version 8.0
// PTX: .target sm_80
// PTX: .visible .entry scale(
// By default only sm_80 PTX, embedded as text for the driver to compile.
// TEXT: gpu.binary @kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, assembly = "
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%m: memref<128xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<128xf32>
      %d = arith.addf %v, %v : f32
      memref.store %d, %m[%i] : memref<128xf32>
      gpu.return
    }
  }
}
