// RUN: tfmc-opt %s -tfm-cpu-prefetch-weight-panels -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-prefetch-weight-panels="stream-min-bytes=0" -canonicalize -split-input-file | FileCheck %s --check-prefix=STREAM

// A prefill micro-kernel: 4 panels of 8 features x 16 lanes, tiles of one
// panel, 16 rows in two groups of 8. The first row group is peeled and
// prefetches feature k of the next tile's panel, clamped to the last panel.
// CHECK-LABEL: func.func @prefill_tile
// Repeated sweeps are not streams: no prefetch ahead in the same tile.
// STREAM-LABEL: func.func @prefill_tile
// STREAM-NOT: locality<0>
// CHECK-SAME: (%[[W:.*]]: memref<4x8x16xf32>
func.func @prefill_tile(%w: memref<4x8x16xf32>, %x: memref<16x8xf32>, %out: memref<16x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  // CHECK: scf.parallel (%[[P:[a-z0-9_]+]]) =
  scf.parallel (%p) = (%c0) to (%c4) step (%c1) {
    %tile = memref.subview %w[%p, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>>
    // CHECK: %[[SECOND:.*]] = arith.addi %{{.*}}, %{{.*}} : index
    // CHECK: %[[NEXT:.*]] = arith.addi %[[P]], %c1{{.*}} : index
    // CHECK: %[[PANEL:.*]] = arith.minui %[[NEXT]], %c3{{.*}} : index
    // CHECK: scf.for %{{.*}} = %{{.*}} to %[[SECOND]] step
    // CHECK: scf.for %[[K:[a-z0-9_]+]] =
    // CHECK-NEXT: memref.prefetch %[[W]][%[[PANEL]], %[[K]], %{{.*}}], read, locality<2>, data
    // CHECK: vector.transfer_read
    // CHECK: scf.for %{{.*}} = %[[SECOND]] to %c16
    // CHECK-NOT: memref.prefetch
    // CHECK: scf.reduce
    scf.for %r = %c0 to %c16 step %c8 {
      %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (f32) {
        %wk = memref.subview %tile[0, %k, 0] [1, 1, 16] [1, 1, 1] : memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
        %v = vector.transfer_read %wk[%c0, %c0, %c0], %zero {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
        %xv = memref.load %x[%r, %k] : memref<16x8xf32>
        %s = vector.reduction <add>, %v : vector<16xf32> into f32
        %m = arith.mulf %s, %xv : f32
        %n = arith.addf %a, %m : f32
        scf.yield %n : f32
      }
      memref.store %acc, %out[%r, %p, %c0] : memref<16x4x16xf32>
    }
    scf.reduce
  } {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 4>}
  return
}

// -----

// Decode: one row group, one sweep that streams the tile once. No next tile
// to overlap; its 2 KiB of panels are below stream-min-bytes (192 MiB), so
// no prefetch either.
// CHECK-LABEL: func.func @single_sweep
// CHECK-NOT: memref.prefetch
// With stream-min-bytes=0 the reduction loop prefetches, at feature k,
// feature k + 4 of its panel (its configuration's stream_distance), clamped
// to the last feature (7), into L1 (locality 3: the configuration is not
// non_temporal).
// STREAM-LABEL: func.func @single_sweep
// STREAM-SAME: (%[[W:[a-z0-9_]+]]: memref<4x8x16xf32>
// STREAM: scf.for %[[P:[a-z0-9_]+]] =
// STREAM: scf.for %[[K:[a-z0-9_]+]] =
// STREAM-NEXT: %[[AHEAD:.*]] = arith.addi %[[K]], %c4
// STREAM-NEXT: %[[CLAMPED:.*]] = arith.minui %[[AHEAD]], %c7
// STREAM-NEXT: memref.prefetch %[[W]][%[[P]], %[[CLAMPED]], %c0], read, locality<3>, data
func.func @single_sweep(%w: memref<4x8x16xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %p = %c0 to %c4 step %c1 {
    %tile = memref.subview %w[%p, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>>
    scf.for %r = %c0 to %c1 step %c1 {
      %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (f32) {
        %wk = memref.subview %tile[0, %k, 0] [1, 1, 16] [1, 1, 1] : memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
        %v = vector.transfer_read %wk[%c0, %c0, %c0], %zero {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
        %s = vector.reduction <add>, %v : vector<16xf32> into f32
        %n = arith.addf %a, %s : f32
        scf.yield %n : f32
      }
      memref.store %acc, %out[%p] : memref<4xf32>
    }
  } {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 4>}
  return
}


// -----

// With a non_temporal configuration (tfm-cpu-select-kernel-config chooses
// it on AMD Zen, #tfm.target's CPU znver*) the stream prefetches are
// non-temporal: each line is read once, a few iterations later.
// STREAM-LABEL: func.func @single_sweep_zen
// STREAM: memref.prefetch %{{.*}}, read, locality<0>, data
// CHECK-LABEL: func.func @single_sweep_zen
// CHECK-NOT: memref.prefetch
func.func @single_sweep_zen(%w: memref<4x8x16xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %p = %c0 to %c4 step %c1 {
    %tile = memref.subview %w[%p, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>>
    scf.for %r = %c0 to %c1 step %c1 {
      %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (f32) {
        %wk = memref.subview %tile[0, %k, 0] [1, 1, 16] [1, 1, 1] : memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
        %v = vector.transfer_read %wk[%c0, %c0, %c0], %zero {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
        %s = vector.reduction <add>, %v : vector<16xf32> into f32
        %n = arith.addf %a, %s : f32
        scf.yield %n : f32
      }
      memref.store %acc, %out[%p] : memref<4xf32>
    }
  } {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 4, non_temporal = true>}
  return
}
// -----

// A tile that covers only half of each panel's features is not a panel
// sweep: left alone.
// CHECK-LABEL: func.func @partial_panels
// CHECK-NOT: memref.prefetch
// STREAM-LABEL: func.func @partial_panels
// STREAM-NOT: memref.prefetch
func.func @partial_panels(%w: memref<4x8x16xf32>, %out: memref<16x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.for %p = %c0 to %c4 step %c1 {
    %tile = memref.subview %w[%p, 0, 0] [1, 4, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>>
    scf.for %r = %c0 to %c16 step %c8 {
      %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (f32) {
        %wk = memref.subview %tile[0, %k, 0] [1, 1, 16] [1, 1, 1] : memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
        %v = vector.transfer_read %wk[%c0, %c0, %c0], %zero {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
        %s = vector.reduction <add>, %v : vector<16xf32> into f32
        %n = arith.addf %a, %s : f32
        scf.yield %n : f32
      }
      memref.store %acc, %out[%r, %p] : memref<16x4xf32>
    }
  } {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 4>}
  return
}

// -----

// Loops of no projection kernel (no configuration) are left alone.
// CHECK-LABEL: func.func @unconfigured_sweep
// CHECK-NOT: memref.prefetch
// STREAM-LABEL: func.func @unconfigured_sweep
// STREAM-NOT: memref.prefetch
func.func @unconfigured_sweep(%w: memref<4x8x16xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %p = %c0 to %c4 step %c1 {
    %tile = memref.subview %w[%p, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>>
    scf.for %r = %c0 to %c1 step %c1 {
      %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (f32) {
        %wk = memref.subview %tile[0, %k, 0] [1, 1, 16] [1, 1, 1] : memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>
        %v = vector.transfer_read %wk[%c0, %c0, %c0], %zero {in_bounds = [true]} : memref<1x1x16xf32, strided<[128, 16, 1], offset: ?>>, vector<16xf32>
        %s = vector.reduction <add>, %v : vector<16xf32> into f32
        %n = arith.addf %a, %s : f32
        scf.yield %n : f32
      }
      memref.store %acc, %out[%p] : memref<4xf32>
    }
  }
  return
}
