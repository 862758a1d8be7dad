// RUN: tfmc-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(tfm-gpu-lower-vectors))" | FileCheck %s

// A lane's 4-element slices: plain and masked loads and a store of one
// 16-byte vector each, aligned to it (one ld.global.v4 in PTX, not four
// scalar loads); the mask a comparison with the lane's count.
// CHECK-LABEL: gpu.func @loads
// CHECK-NOT: vector.transfer_read
// CHECK: vector.load %{{.*}}[%c0, %{{.*}}] {alignment = 16 : i64} : memref<1x200xf32>, vector<4xf32>
// CHECK: %[[MASK:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: vector.maskedload %{{.*}}[%c0, %{{.*}}], %[[MASK]], %{{.*}} {alignment = 16 : i64}
// CHECK: vector.store %{{.*}}, %{{.*}}[%c0] {alignment = 16 : i64} : memref<4xf32>, vector<4xf32>
gpu.module @kernels {
  gpu.func @loads(%m: memref<1x200xf32>, %o: memref<4xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %lane = gpu.lane_id
    %c4 = arith.constant 4 : index
    %start = arith.muli %lane, %c4 : index
    %zero = arith.constant 0.0 : f32
    %v = vector.transfer_read %m[%c0, %start], %zero {in_bounds = [true]} : memref<1x200xf32>, vector<4xf32>
    %mask = vector.create_mask %n : vector<4xi1>
    %w = vector.transfer_read %m[%c0, %start], %zero, %mask {in_bounds = [true]} : memref<1x200xf32>, vector<4xf32>
    %s = arith.addf %v, %w : vector<4xf32>
    vector.transfer_write %s, %o[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
    gpu.return
  }
}

// -----

// A thread's 4x4 GEMM tile: the contraction becomes FMAs on 1-D vectors.
// CHECK-LABEL: gpu.func @tile
// CHECK-NOT: vector.contract
// CHECK: vector.fma {{.*}} : vector<4xf32>
gpu.module @kernels {
  gpu.func @tile(%a: vector<4x2xf32>, %b: vector<2x4xf32>, %c: vector<4x4xf32>, %o: memref<4x4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x2xf32>, vector<2x4xf32> into vector<4x4xf32>
    vector.transfer_write %r, %o[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32>
    gpu.return
  }
}
