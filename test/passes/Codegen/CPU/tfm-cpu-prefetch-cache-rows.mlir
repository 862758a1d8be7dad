// RUN: tfmc-opt %s -tfm-cpu-prefetch-cache-rows -canonicalize -split-input-file | FileCheck %s

// A flash-attention block loop over positions p, 2 at a time: the keys of
// the next block (rows p + 2, p + 3) and the values of this one (row p) of
// one head. Each row is 32 f32, two cache lines. Every row read is
// prefetched 4 positions ahead (the attention's configuration), both
// lines, clamped to the last cached row.

// CHECK-LABEL: func.func @block_loop
// CHECK-SAME: (%[[K:[a-z0-9_]+]]: memref<2x?x32xf32>, %[[V:[a-z0-9_]+]]: memref<2x?x32xf32>, %[[HEAD:[a-z0-9_]+]]: index
// CHECK: %[[KROWS:.*]] = memref.dim %[[K]], %c1
// CHECK: %[[KLAST:.*]] = arith.subi %[[KROWS]], %c1
// CHECK: %[[VROWS:.*]] = memref.dim %[[V]], %c1
// CHECK: %[[VLAST:.*]] = arith.subi %[[VROWS]], %c1
// CHECK: scf.for %[[P:[a-z0-9_]+]] =
// CHECK-NEXT: %[[K6:.*]] = arith.addi %[[P]], %c6
// CHECK-NEXT: %[[K6C:.*]] = arith.minui %[[K6]], %[[KLAST]]
// CHECK-NEXT: memref.prefetch %[[K]][%[[HEAD]], %[[K6C]], %c0], read, locality<0>, data
// CHECK-NEXT: memref.prefetch %[[K]][%[[HEAD]], %[[K6C]], %c16], read, locality<0>, data
// CHECK-NEXT: %[[K7:.*]] = arith.addi %[[P]], %c7
// CHECK-NEXT: %[[K7C:.*]] = arith.minui %[[K7]], %[[KLAST]]
// CHECK-NEXT: memref.prefetch %[[K]][%[[HEAD]], %[[K7C]], %c0]
// CHECK-NEXT: memref.prefetch %[[K]][%[[HEAD]], %[[K7C]], %c16]
// CHECK-NEXT: %[[V4:.*]] = arith.addi %[[P]], %c4
// CHECK-NEXT: %[[V4C:.*]] = arith.minui %[[V4]], %[[VLAST]]
// CHECK-NEXT: memref.prefetch %[[V]][%[[HEAD]], %[[V4C]], %c0]
// CHECK-NEXT: memref.prefetch %[[V]][%[[HEAD]], %[[V4C]], %c16]
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %[[K]]

func.func @block_loop(%keys: memref<2x?x32xf32>, %values: memref<2x?x32xf32>,
                      %head: index, %positions: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %sum = scf.for %p = %c0 to %positions step %c2 iter_args(%acc = %zero) -> vector<16xf32> {
    %next = arith.addi %p, %c2 : index
    %after = arith.addi %c3, %p : index
    %k0 = vector.transfer_read %keys[%head, %next, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %k1 = vector.transfer_read %keys[%head, %after, %c16], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %v0 = vector.transfer_read %values[%head, %p, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %a = arith.addf %k0, %k1 : vector<16xf32>
    %b = arith.addf %a, %v0 : vector<16xf32>
    %c = arith.addf %acc, %b : vector<16xf32>
    scf.yield %c : vector<16xf32>
  } {tfm_cpu.config = #tfm_cpu.attention<block_keys = 2, cache_prefetch = 4>}
  return %sum : vector<16xf32>
}

// -----

// Rows of a statically shaped matrix are weights, not a cache that grows
// with the position: left to the weight prefetch.

// CHECK-LABEL: func.func @static_rows
// CHECK-NOT: memref.prefetch
func.func @static_rows(%weights: memref<2x64x32xf32>, %head: index,
                       %positions: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %sum = scf.for %p = %c0 to %positions step %c1 iter_args(%acc = %zero) -> vector<16xf32> {
    %row = vector.transfer_read %weights[%head, %p, %c0], %pad {in_bounds = [true]} : memref<2x64x32xf32>, vector<16xf32>
    %next = arith.addf %acc, %row : vector<16xf32>
    scf.yield %next : vector<16xf32>
  } {tfm_cpu.config = #tfm_cpu.attention<block_keys = 2, cache_prefetch = 4>}
  return %sum : vector<16xf32>
}

// -----

// Rows that are not the position plus a constant (here every other row)
// have no block to prefetch ahead of.

// CHECK-LABEL: func.func @strided_rows
// CHECK-NOT: memref.prefetch
func.func @strided_rows(%cache: memref<2x?x32xf32>, %head: index,
                        %positions: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %sum = scf.for %p = %c0 to %positions step %c1 iter_args(%acc = %zero) -> vector<16xf32> {
    %even = arith.muli %p, %c2 : index
    %row = vector.transfer_read %cache[%head, %even, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %next = arith.addf %acc, %row : vector<16xf32>
    scf.yield %next : vector<16xf32>
  } {tfm_cpu.config = #tfm_cpu.attention<block_keys = 2, cache_prefetch = 4>}
  return %sum : vector<16xf32>
}

// -----

// A head index that changes inside the loop reads a different matrix on
// every iteration: no stream.

// CHECK-LABEL: func.func @head_varies
// CHECK-NOT: memref.prefetch
func.func @head_varies(%cache: memref<2x?x32xf32>, %positions: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %sum = scf.for %p = %c0 to %positions step %c1 iter_args(%acc = %zero) -> vector<16xf32> {
    %head = arith.remui %p, %c2 : index
    %row = vector.transfer_read %cache[%head, %p, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %next = arith.addf %acc, %row : vector<16xf32>
    scf.yield %next : vector<16xf32>
  } {tfm_cpu.config = #tfm_cpu.attention<block_keys = 2, cache_prefetch = 4>}
  return %sum : vector<16xf32>
}

// -----

// A configuration without a cache prefetch (cache_prefetch = 0) leaves the
// block loop as it is.
// CHECK-LABEL: func.func @no_prefetch
// CHECK-NOT: memref.prefetch
func.func @no_prefetch(%keys: memref<2x?x32xf32>, %values: memref<2x?x32xf32>,
                      %head: index, %positions: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %sum = scf.for %p = %c0 to %positions step %c2 iter_args(%acc = %zero) -> vector<16xf32> {
    %next = arith.addi %p, %c2 : index
    %after = arith.addi %c3, %p : index
    %k0 = vector.transfer_read %keys[%head, %next, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %k1 = vector.transfer_read %keys[%head, %after, %c16], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %v0 = vector.transfer_read %values[%head, %p, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %a = arith.addf %k0, %k1 : vector<16xf32>
    %b = arith.addf %a, %v0 : vector<16xf32>
    %c = arith.addf %acc, %b : vector<16xf32>
    scf.yield %c : vector<16xf32>
  } {tfm_cpu.config = #tfm_cpu.attention<block_keys = 2, cache_prefetch = 0>}
  return %sum : vector<16xf32>
}

// -----

// So does a loop of no attention kernel (no configuration).
// CHECK-LABEL: func.func @unconfigured
// CHECK-NOT: memref.prefetch
func.func @unconfigured(%keys: memref<2x?x32xf32>, %values: memref<2x?x32xf32>,
                      %head: index, %positions: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %sum = scf.for %p = %c0 to %positions step %c2 iter_args(%acc = %zero) -> vector<16xf32> {
    %next = arith.addi %p, %c2 : index
    %after = arith.addi %c3, %p : index
    %k0 = vector.transfer_read %keys[%head, %next, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %k1 = vector.transfer_read %keys[%head, %after, %c16], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %v0 = vector.transfer_read %values[%head, %p, %c0], %pad {in_bounds = [true]} : memref<2x?x32xf32>, vector<16xf32>
    %a = arith.addf %k0, %k1 : vector<16xf32>
    %b = arith.addf %a, %v0 : vector<16xf32>
    %c = arith.addf %acc, %b : vector<16xf32>
    scf.yield %c : vector<16xf32>
  }
  return %sum : vector<16xf32>
}
