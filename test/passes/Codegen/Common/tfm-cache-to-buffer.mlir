// RUN: tfmc-opt %s -tfm-cache-to-buffer -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cache-to-buffer -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -split-input-file | FileCheck %s --check-prefix=BUFFERS

// Two layers, each writing its row of keys and values and reading its
// rows: the cache becomes a buffer, the writes copies into views of it, the
// reads tensors of views, and the entry no longer returns the cache.
// CHECK-LABEL: func.func @two_layers
// CHECK-SAME: (%[[POS:.*]]: index {{.*}}, %[[CACHE:.*]]: memref<2x2x3x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> tensor<3x8xf32>
// CHECK: %[[K0:.*]] = memref.subview %[[CACHE]][0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[K0]]
// CHECK: %[[V0:.*]] = memref.subview %[[CACHE]][1, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[V0]]
// CHECK: %[[R0:.*]] = memref.subview %[[CACHE]][0, 0, 0, 0] [1, 1, 3, 8] [1, 1, 1, 1]
// CHECK: bufferization.to_tensor %[[R0]] restrict : memref<3x8xf32, strided<[8, 1]>> to tensor<3x8xf32>
// CHECK: %[[K1:.*]] = memref.subview %[[CACHE]][0, 1, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[K1]]
// CHECK: %[[R1:.*]] = memref.subview %[[CACHE]][0, 1, 0, 0] [1, 1, 3, 8] [1, 1, 1, 1]
// CHECK: %[[T1:.*]] = bufferization.to_tensor %[[R1]] restrict
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[T1]] : tensor<3x8xf32>
// Bufferized, the writes copy into views of the argument: the cache is
// never allocated or copied whole.
// BUFFERS-LABEL: func.func @two_layers
// BUFFERS-SAME: %[[CACHE:[a-z0-9]+]]: memref<2x2x3x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) -> memref<3x8xf32>
// BUFFERS-NOT: memref.alloc() {{.*}} : memref<2x2x3x8xf32>
// BUFFERS: %[[K0:.*]] = memref.subview %[[CACHE]][0, 0, 0, 0] [1, 1, 1, 8]
// BUFFERS: memref.copy %{{.*}}, %[[K0]]
// BUFFERS: %[[V0:.*]] = memref.subview %[[CACHE]][1, 0, 0, 0] [1, 1, 1, 8]
// BUFFERS: memref.copy %{{.*}}, %[[V0]]
// BUFFERS: %[[K1:.*]] = memref.subview %[[CACHE]][0, 1, 0, 0] [1, 1, 1, 8]
// BUFFERS: memref.copy %{{.*}}, %[[K1]]
// BUFFERS-NOT: memref<2x2x3x8xf32>)
func.func @two_layers(%pos: index {tfm.entry_arg = #tfm.entry_arg<position>},
                      %cache: tensor<2x2x3x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>})
    -> (tensor<3x8xf32>, tensor<2x2x3x8xf32>) {
  %row = arith.constant dense<1.0> : tensor<8xf32>
  %k0 = tensor.insert_slice %row into %cache[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<8xf32> into tensor<2x2x3x8xf32>
  %v0 = tensor.insert_slice %row into %k0[1, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<8xf32> into tensor<2x2x3x8xf32>
  %keys0 = tensor.extract_slice %v0[0, 0, 0, 0] [1, 1, 3, 8] [1, 1, 1, 1] : tensor<2x2x3x8xf32> to tensor<3x8xf32>
  %k1 = tensor.insert_slice %row into %v0[0, 1, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<8xf32> into tensor<2x2x3x8xf32>
  %keys1 = tensor.extract_slice %k1[0, 1, 0, 0] [1, 1, 3, 8] [1, 1, 1, 1] : tensor<2x2x3x8xf32> to tensor<3x8xf32>
  return %keys1, %k1 : tensor<3x8xf32>, tensor<2x2x3x8xf32>
}

// -----

// A function without a cache argument is not an entry with a cache.
// CHECK-LABEL: func.func @no_cache
// CHECK-SAME: (%{{.*}}: tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK: tensor.insert_slice
func.func @no_cache(%cache: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %row = arith.constant dense<1.0> : tensor<8xf32>
  %k0 = tensor.insert_slice %row into %cache[0, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<2x8xf32>
  return %k0 : tensor<2x8xf32>
}

// -----

// The read of the old rows [0, pos) and the write of row pos may overlap as
// far as the slices tell (pos is not a constant): in memory the read could
// see the write, so the cache stays a tensor.
// CHECK-LABEL: func.func @read_before_overlapping_write
// CHECK-SAME: tensor<2x4x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
// CHECK: tensor.extract_slice
// CHECK: tensor.insert_slice
func.func @read_before_overlapping_write(%pos: index {tfm.entry_arg = #tfm.entry_arg<position>},
                                         %cache: tensor<2x4x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>})
    -> (tensor<?x8xf32>, tensor<2x4x8xf32>) {
  %row = arith.constant dense<1.0> : tensor<8xf32>
  %old = tensor.extract_slice %cache[0, 0, 0] [1, %pos, 8] [1, 1, 1] : tensor<2x4x8xf32> to tensor<?x8xf32>
  %k0 = tensor.insert_slice %row into %cache[0, %pos, 0] [1, 1, 8] [1, 1, 1] : tensor<8xf32> into tensor<2x4x8xf32>
  return %old, %k0 : tensor<?x8xf32>, tensor<2x4x8xf32>
}

// -----

// A link that another op reads whole (here a copy) is not a plain chain.
// CHECK-LABEL: func.func @link_read_whole
// CHECK-SAME: tensor<2x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
// CHECK: tensor.insert_slice
// CHECK: linalg.copy
func.func @link_read_whole(%cache: tensor<2x8xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>},
                           %out: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %row = arith.constant dense<1.0> : tensor<8xf32>
  %k0 = tensor.insert_slice %row into %cache[0, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<2x8xf32>
  %copy = linalg.copy ins(%k0 : tensor<2x8xf32>) outs(%out : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %copy, %k0 : tensor<2x8xf32>, tensor<2x8xf32>
}
