// RUN: tfmc-opt %s -split-input-file -tfm-approximate-math | FileCheck %s
// RUN: tfmc-opt %s -split-input-file -tfm-approximate-math=exp-tanh=false | FileCheck %s --check-prefix=ERF-ONLY

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

// -----

// CHECK-LABEL: func.func @kept
// CHECK: math.sin
// CHECK: math.sqrt
func.func @kept(%x: f32) -> f32 {
  %s = math.sin %x : f32
  %r = math.sqrt %s : f32
  return %r : f32
}

// -----

// erf has no LLVM lowering: it is replaced whether or not exp and tanh are.
// CHECK-LABEL: func.func @erf
// CHECK-NOT: math.erf
// CHECK: return
// ERF-ONLY-LABEL: func.func @erf
// ERF-ONLY-NOT: math.erf
// ERF-ONLY: math.exp
// ERF-ONLY: return
func.func @erf(%x: vector<16xf32>, %y: f32) -> (vector<16xf32>, f32) {
  %e = math.erf %x : vector<16xf32>
  %x2 = math.exp %y : f32
  return %e, %x2 : vector<16xf32>, f32
}
