// RUN: tfmc-opt %s -split-input-file -verify-diagnostics -tfm-gpu-use-entry-stream

// The pass runs once.
module {
  // expected-error @+1 {{already takes a stream}}
  llvm.func @decode(%weights: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>},
                    %stream: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<stream>}) {
    llvm.return
  }
}

// -----

// The mark belongs on a pointer.
// expected-error @+1 {{argument 0 marked #tfm.entry_arg<stream> must be an !llvm.ptr, got 'index'}}
func.func @decode(%stream: index {tfm.entry_arg = #tfm.entry_arg<stream>}) {
  return
}
