// RUN: tfmc-opt %s --pass-pipeline="builtin.module(gpu.module(tfm-gpu-expand-subgroup-reduce))" | FileCheck %s

// Each f32 warp reduction becomes a butterfly of five xor shuffles over
// the 32 lanes, combined with its own operation: every lane ends with the
// warp's result.
// CHECK-LABEL: gpu.func @sum
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: %[[V:.*]] = memref.load
// CHECK: %[[S1:.*]], %{{.*}} = gpu.shuffle xor %[[V]], %c1_i32, %c32_i32 : f32
// CHECK: %[[A1:.*]] = arith.addf %[[V]], %[[S1]] : f32
// CHECK: %[[S2:.*]], %{{.*}} = gpu.shuffle xor %[[A1]], %c2_i32, %c32_i32 : f32
// CHECK: arith.addf %[[A1]], %[[S2]] : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32
// CHECK: %[[M1:.*]], %{{.*}} = gpu.shuffle xor %[[V]], %c1_i32, %c32_i32 : f32
// CHECK: arith.maxnumf %[[V]], %[[M1]] : f32
// CHECK-COUNT-4: arith.maxnumf
// CHECK-NOT: gpu.subgroup_reduce
gpu.module @kernels {
  gpu.func @sum(%m: memref<32xf32>, %o: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %lane = gpu.lane_id
    %v = memref.load %m[%lane] : memref<32xf32>
    %s = gpu.subgroup_reduce add %v uniform : (f32) -> f32
    %mx = gpu.subgroup_reduce maxnumf %v uniform : (f32) -> f32
    %r = arith.addf %s, %mx : f32
    memref.store %r, %o[%c0] : memref<1xf32>
    gpu.return
  }
}
