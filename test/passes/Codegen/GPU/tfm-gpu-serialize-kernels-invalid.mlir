// RUN: not tfmc-opt %s -tfm-gpu-serialize-kernels=cubin=sm90 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not tfmc-opt %s -tfm-gpu-serialize-kernels="cubin= ptx-file=%t.ptx" 2>&1 | FileCheck %s --check-prefix=ONE

// ARCH: error: invalid GPU arch 'sm90' (expected sm_NN)
// ONE: error: ptx-file writes one module's PTX, but there are 2 gpu.modules (run tfm-gpu-merge-kernel-modules first)
module attributes {gpu.container_module} {
  gpu.module @a {
  }
  gpu.module @b {
  }
}
