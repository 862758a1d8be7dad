// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-weight-types | FileCheck %s --check-prefix=STORED
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-weight-types=weights=f16 | FileCheck %s --check-prefix=F16
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-weight-types=weights=f32 | FileCheck %s --check-prefix=F32

// A matrix the file stores in bf16 is declared in bf16 (as stored), or in
// the type asked for: the declaration is replaced, named after it and
// stacking its model tensors, and the projection reads the new one.
// STORED-LABEL: tfm.global_weight @wo.bf16 : tensor<32x16xbf16> {stacked = ["wo"]}
// STORED-NOT: tfm.global_weight @wo :
// STORED-LABEL: func.func @stored_bf16
// STORED: %[[W:.*]] = tfm.weight @wo.bf16 : tensor<32x16xbf16>
// STORED: tfm.linear %{{.*}}, %[[W]] : tensor<1x16xf32>, tensor<32x16xbf16>
// F16-LABEL: tfm.global_weight @wo.f16 : tensor<32x16xf16> {stacked = ["wo"]}
// F16: tfm.weight @wo.f16 : tensor<32x16xf16>
// F32-LABEL: tfm.global_weight @wo : tensor<32x16xf32> {stored = #tfm.stored<bf16>}
// F32: tfm.weight @wo : tensor<32x16xf32>
tfm.global_weight @wo : tensor<32x16xf32> {stored = #tfm.stored<bf16>}
func.func @stored_bf16(%x: tensor<1x16xf32>) -> tensor<1x32xf32> {
  %w = tfm.weight @wo : tensor<32x16xf32>
  %y = tfm.linear %x, %w : tensor<1x16xf32>, tensor<32x16xf32> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// A stack of f32 tensors stays f32 as stored and takes f16 when asked,
// keeping the names of the tensors it stacks; an LM head's matrix too.
// STORED-LABEL: tfm.global_weight @wqkv : tensor<48x16xf32> {stacked = ["wq", "wk", "wv"]}
// STORED: tfm.global_weight @head : tensor<64x16xf32>
// F16-LABEL: tfm.global_weight @wqkv.f16 : tensor<48x16xf16> {stacked = ["wq", "wk", "wv"]}
// F16: tfm.global_weight @head.f16 : tensor<64x16xf16> {stacked = ["head"]}
// F16-LABEL: func.func @asked_f16
// F16: tfm.linear %{{.*}}, %{{.*}} : tensor<1x16xf32>, tensor<48x16xf16>
// F16: tfm.lm_head %{{.*}}, %{{.*}} : tensor<1x16xf32>, tensor<64x16xf16>
tfm.global_weight @wqkv : tensor<48x16xf32> {stacked = ["wq", "wk", "wv"]}
tfm.global_weight @head : tensor<64x16xf32>
func.func @asked_f16(%x: tensor<1x16xf32>) -> (tensor<1x48xf32>, tensor<1x64xf32>) {
  %w = tfm.weight @wqkv : tensor<48x16xf32>
  %y = tfm.linear %x, %w : tensor<1x16xf32>, tensor<48x16xf32> -> tensor<1x48xf32>
  %h = tfm.weight @head : tensor<64x16xf32>
  %l = tfm.lm_head %x, %h : tensor<1x16xf32>, tensor<64x16xf32> -> tensor<1x64xf32>
  return %y, %l : tensor<1x48xf32>, tensor<1x64xf32>
}

// -----

// A tied table: the embedding gathers from it and the LM head projects
// with it, both widening 16-bit elements: one declaration in bf16 for
// both. A table of learned positions stays f32.
// F16-LABEL: tfm.global_weight @table.f16 : tensor<64x16xf16> {stacked = ["table"]}
// F16: tfm.global_weight @positions : tensor<8x16xf32>
// F16-LABEL: func.func @tied
// F16: %[[T:.*]] = tfm.weight @table.f16 : tensor<64x16xf16>
// F16: tfm.embedding %{{.*}}, %[[T]] : tensor<1xi32>, tensor<64x16xf16>
// F16: tfm.lm_head %{{.*}}, %[[T]] : tensor<1x16xf32>, tensor<64x16xf16>
// STORED-LABEL: tfm.global_weight @table.f16 : tensor<64x16xf16>
tfm.global_weight @table : tensor<64x16xf32> {stored = #tfm.stored<f16>}
tfm.global_weight @positions : tensor<8x16xf32>
func.func @tied(%tokens: tensor<1xi32>) -> tensor<1x64xf32> {
  %t = tfm.weight @table : tensor<64x16xf32>
  %x = tfm.embedding %tokens, %t : tensor<1xi32>, tensor<64x16xf32> -> tensor<1x16xf32>
  %p = tfm.weight @positions : tensor<8x16xf32>
  %c0 = arith.constant 0 : index
  %y = tfm.position_embedding %x, %p[%c0] : tensor<1x16xf32>, tensor<8x16xf32>
  %l = tfm.lm_head %y, %t : tensor<1x16xf32>, tensor<64x16xf32> -> tensor<1x64xf32>
  return %l : tensor<1x64xf32>
}

// -----

// Only matrices: norm gains and biases stay f32.
// F16-LABEL: func.func @not_matrices
// F16: tfm.weight @gain : tensor<16xf32>
// F16: tfm.weight @w.f16 : tensor<32x16xf16>
// F16: tfm.weight @bias : tensor<32xf32>
tfm.global_weight @gain : tensor<16xf32>
tfm.global_weight @bias : tensor<32xf32>
tfm.global_weight @w : tensor<32x16xf32>
func.func @not_matrices(%x: tensor<1x16xf32>) -> tensor<1x32xf32> {
  %g = tfm.weight @gain : tensor<16xf32>
  %n = tfm.rms_norm %x, %g {eps = 1.0e-5 : f32} : tensor<1x16xf32>, tensor<16xf32>
  %w = tfm.weight @w : tensor<32x16xf32>
  %b = tfm.weight @bias : tensor<32xf32>
  %y = tfm.linear %n, %w, %b : tensor<1x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// A mixture of experts' router and stacked experts widen 16-bit elements
// too.
// F16-LABEL: tfm.global_weight @router.f16 : tensor<4x16xf16> {stacked = ["router"]}
// F16: tfm.global_weight @gate.f16 : tensor<32x16xf16> {stacked = ["e0.gate", "e1.gate", "e2.gate", "e3.gate"]}
// F16-LABEL: func.func @experts
// F16: tfm.moe_route %{{.*}}, %{{.*}} {{.*}} : tensor<1x16xf32>, tensor<4x16xf16>
// F16: tfm.moe_experts {{.*}} : tensor<1x16xf32>, tensor<1x2xf32>, tensor<1x2xi32>, tensor<32x16xf16>, tensor<32x16xf16>, tensor<64x8xf16>
tfm.global_weight @router : tensor<4x16xf32>
tfm.global_weight @gate : tensor<32x16xf32> {stacked = ["e0.gate", "e1.gate", "e2.gate", "e3.gate"]}
tfm.global_weight @up : tensor<32x16xf32> {stacked = ["e0.up", "e1.up", "e2.up", "e3.up"]}
tfm.global_weight @down : tensor<64x8xf32> {stacked = ["e0.down", "e1.down", "e2.down", "e3.down"]}
func.func @experts(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %r = tfm.weight @router : tensor<4x16xf32>
  %weights, %chosen = tfm.moe_route %x, %r {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<1x16xf32>, tensor<4x16xf32> -> tensor<1x2xf32>, tensor<1x2xi32>
  %g = tfm.weight @gate : tensor<32x16xf32>
  %u = tfm.weight @up : tensor<32x16xf32>
  %d = tfm.weight @down : tensor<64x8xf32>
  %y = tfm.moe_experts %x, %weights, %chosen, %g, %u, %d : tensor<1x16xf32>, tensor<1x2xf32>, tensor<1x2xi32>, tensor<32x16xf32>, tensor<32x16xf32>, tensor<64x8xf32>
  return %y : tensor<1x16xf32>
}
