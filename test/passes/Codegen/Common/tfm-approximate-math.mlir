// RUN: tfmc-opt %s -tfm-approximate-math | FileCheck %s

// exp and tanh become inline arithmetic (scalar and vector alike); other
// math functions are left alone.
// CHECK-LABEL: func.func @approximated
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.fma
// CHECK: return
func.func @approximated(%x: f32, %v: vector<16xf32>) -> (f32, vector<16xf32>) {
  %e = math.exp %x : f32
  %t = math.tanh %v : vector<16xf32>
  return %e, %t : f32, vector<16xf32>
}

// CHECK-LABEL: func.func @kept
// CHECK: math.sin
// CHECK: math.sqrt
func.func @kept(%x: f32) -> f32 {
  %s = math.sin %x : f32
  %r = math.sqrt %s : f32
  return %r : f32
}
