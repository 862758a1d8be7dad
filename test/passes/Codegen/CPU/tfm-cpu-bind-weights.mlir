// RUN: tfmc-opt %s -tfm-cpu-bind-weights | FileCheck %s

// Weights become read-only views of one blob argument at 64-byte aligned offsets in
// declaration order; the layout is recorded on the module.

// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.weights = #tfm.weights_layout<bytes = 320, hash = {{[0-9]+}}, offsets = {a = 0 : i64, b = 64 : i64}>
// CHECK-NOT: tfm.global_weight
tfm.global_weight @a : tensor<3xf32>
tfm.global_weight @b : tensor<4x16xf32>
// CHECK-LABEL: func.func @reads_weights
// CHECK-SAME: (%[[BLOB:.*]]: memref<320xi8> {tfm.entry_arg = #tfm.entry_arg<weights>}, %{{.*}}: tensor<4x16xf32>)
func.func @reads_weights(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[OFFSET:.*]] = arith.constant 64 : index
  // CHECK: %[[VIEW:.*]] = memref.view %[[BLOB]][%[[OFFSET]]][] : memref<320xi8> to memref<4x16xf32>
  // CHECK: bufferization.to_tensor %[[VIEW]] restrict
  %b = tfm.weight @b : tensor<4x16xf32>
  %y = arith.addf %x, %b : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// A function that reads no weight gets no blob argument.
// CHECK-LABEL: func.func @reads_nothing
// CHECK-SAME: (%{{.*}}: tensor<4x16xf32>) -> tensor<4x16xf32>
func.func @reads_nothing(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}
