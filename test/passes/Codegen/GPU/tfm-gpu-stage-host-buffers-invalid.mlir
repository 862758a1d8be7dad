// RUN: tfmc-opt %s -split-input-file -verify-diagnostics -tfm-gpu-stage-host-buffers

// A host buffer of unknown size cannot be copied.
// expected-error @+1 {{argument 1 (host memory) has the dynamic type 'memref<?xf32>': its device copy needs a static size}}
func.func @decode(%token: memref<1xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>},
                  %logits: memref<?xf32>) {
  return
}
