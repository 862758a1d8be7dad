// RUN: tfmc-opt %s -tfm-cpu-plan-memory -split-input-file -verify-diagnostics

// The plan runs once: a second scratch argument would break the ABI.
// expected-error @+1 {{entry point 'decode' already has a scratch argument}}
func.func @decode(%s: memref<64xi8> {tfm.entry_arg = #tfm.entry_arg<scratch>}) {
  return
}
