// RUN: tfmc-opt %s -tfm-gpu-map-to-launches | FileCheck %s

// A constant table the kernel reads (RoPE's inverse frequencies) is read
// through the global inside the kernel, which outlining then copies into
// the kernel's module: passed as an argument, the kernel would get a
// pointer to host memory.
// CHECK-LABEL: func.func @rope_angles
// CHECK: gpu.launch
// CHECK:   %[[TABLE:.*]] = memref.get_global @inverse_frequencies : memref<8xf32>
// CHECK:   memref.load %[[TABLE]]
// CHECK:   gpu.terminator
// CHECK: return
memref.global "private" constant @inverse_frequencies : memref<8xf32> = dense<[1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125]>
func.func @rope_angles(%angles: memref<8xf32>) {
  %table = memref.get_global @inverse_frequencies : memref<8xf32>
  scf.forall (%block) in (1) {
    scf.forall (%thread) in (8) {
      %frequency = memref.load %table[%thread] : memref<8xf32>
      memref.store %frequency, %angles[%thread] : memref<8xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<elementwise, workgroup = [8, 0, 0], subgroup = [0, 0, 0], block = [8, 1, 1], vector_width = 1, chunk = 0>}
  return
}
