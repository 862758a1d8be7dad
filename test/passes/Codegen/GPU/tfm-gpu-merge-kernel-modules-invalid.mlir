// RUN: tfmc-opt %s -split-input-file -verify-diagnostics -tfm-gpu-merge-kernel-modules

// A module compiled for a target of its own cannot share a binary.
module attributes {gpu.container_module} {
  gpu.module @plain {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  // expected-error @+1 {{has attributes or targets of its own: cannot merge it with the other kernels}}
  gpu.module @targeted [#nvvm.target<chip = "sm_90">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// Two symbols that would take one name: @m's global @k becomes @m_k, as
// does the kernel of module @m_k.
module attributes {gpu.container_module} {
  gpu.module @m {
    memref.global "private" constant @k : memref<4xf32> = dense<1.0>
  }
  gpu.module @m_k {
    // expected-error @+1 {{would be named 'm_k' as a symbol of another kernel module}}
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
