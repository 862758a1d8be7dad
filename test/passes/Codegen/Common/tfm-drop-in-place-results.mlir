// RUN: tfmc-opt %s -tfm-drop-in-place-results -split-input-file | FileCheck %s

// A returned argument buffer (the KV cache updated in place) is dropped.
// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%[[CACHE:.*]]: memref<4xf32>) -> memref<2xf32>
// CHECK: return %{{.*}} : memref<2xf32>
func.func @entry(%cache: memref<4xf32>) -> (memref<2xf32>, memref<4xf32>) {
  %logits = memref.alloc() : memref<2xf32>
  return %logits, %cache : memref<2xf32>, memref<4xf32>
}

// -----

// Results that are not arguments stay.
// CHECK-LABEL: func.func @fresh
// CHECK-SAME: -> memref<2xf32>
func.func @fresh() -> memref<2xf32> {
  %logits = memref.alloc() : memref<2xf32>
  return %logits : memref<2xf32>
}
