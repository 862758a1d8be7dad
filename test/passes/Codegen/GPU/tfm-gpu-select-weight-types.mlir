// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-weight-types | FileCheck %s --check-prefix=STORED
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-weight-types=weights=f16 | FileCheck %s --check-prefix=F16
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-weight-types=weights=f32 | FileCheck %s --check-prefix=F32
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-weight-types=weights=q4_0 | FileCheck %s --check-prefix=Q4

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

// -----

// A matrix the file stores in Q8_0 keeps its blocks as stored: its quants
// and scales (#tfm_gpu.blocks, one row a panel), read through
// tfm_gpu.dequantize. Asked for a type, it takes that type instead.
// STORED-LABEL: tfm.global_weight @wq.q8_0 : tensor<32x2x32x1xi8> {layout = #tfm_gpu.blocks<q8_0>, stacked = ["wq"]}
// STORED: tfm.global_weight @wq.q8_0.scales : tensor<32x2x1xf16> {layout = #tfm_gpu.blocks<q8_0, scales>, stacked = ["wq"]}
// STORED-NOT: tfm.global_weight @wq :
// STORED-LABEL: func.func @stored_q8_0
// STORED: %[[Q:.*]] = tfm.weight @wq.q8_0 : tensor<32x2x32x1xi8>
// STORED: %[[S:.*]] = tfm.weight @wq.q8_0.scales : tensor<32x2x1xf16>
// STORED: %[[W:.*]] = tfm_gpu.dequantize q8_0 %[[Q]], %[[S]] : tensor<32x2x32x1xi8>, tensor<32x2x1xf16> -> tensor<32x64xf32>
// STORED: tfm.linear %{{.*}}, %[[W]] : tensor<1x64xf32>, tensor<32x64xf32>
// F16-LABEL: tfm.global_weight @wq.f16 : tensor<32x64xf16> {stacked = ["wq"]}
// F32-LABEL: tfm.global_weight @wq : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @wq : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
func.func @stored_q8_0(%x: tensor<1x64xf32>) -> tensor<1x32xf32> {
  %w = tfm.weight @wq : tensor<32x64xf32>
  %y = tfm.linear %x, %w : tensor<1x64xf32>, tensor<32x64xf32> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// A stack of Q4_0 tensors (16 bytes a block), an LM head and the table an
// embedding gathers from keep their blocks; a stack of two block types is
// dequantized by the package writer (f32).
// STORED-LABEL: tfm.global_weight @wkv.q4_0 : tensor<64x2x16x1xi8> {layout = #tfm_gpu.blocks<q4_0>, stacked = ["wk", "wv"]}
// STORED: tfm.global_weight @wkv.q4_0.scales : tensor<64x2x1xf16> {layout = #tfm_gpu.blocks<q4_0, scales>, stacked = ["wk", "wv"]}
// STORED: tfm.global_weight @head.q4_0 : tensor<128x2x16x1xi8> {layout = #tfm_gpu.blocks<q4_0>, stacked = ["head"]}
// STORED: tfm.global_weight @table.q4_0 : tensor<128x2x16x1xi8> {layout = #tfm_gpu.blocks<q4_0>, stacked = ["table"]}
// STORED: tfm.global_weight @mixed : tensor<64x64xf32> {stacked = ["wg", "wu"], stored = #tfm.stored<q4_0, q8_0>}
// STORED-LABEL: func.func @stored_q4_0
// STORED: %[[TABLE:.*]] = tfm_gpu.dequantize q4_0 {{.*}} -> tensor<128x64xf32>
// STORED: tfm.embedding %{{.*}}, %[[TABLE]] : tensor<1xi32>, tensor<128x64xf32>
// STORED: tfm_gpu.dequantize q4_0 {{.*}} -> tensor<64x64xf32>
// STORED: tfm.weight @mixed : tensor<64x64xf32>
// STORED: tfm_gpu.dequantize q4_0 {{.*}} -> tensor<128x64xf32>
// STORED: tfm.lm_head
tfm.global_weight @wkv : tensor<64x64xf32> {stacked = ["wk", "wv"], stored = #tfm.stored<q4_0>}
tfm.global_weight @head : tensor<128x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @table : tensor<128x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @mixed : tensor<64x64xf32> {stacked = ["wg", "wu"], stored = #tfm.stored<q4_0, q8_0>}
func.func @stored_q4_0(%tokens: tensor<1xi32>) -> (tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x128xf32>) {
  %t = tfm.weight @table : tensor<128x64xf32>
  %x = tfm.embedding %tokens, %t : tensor<1xi32>, tensor<128x64xf32> -> tensor<1x64xf32>
  %kv = tfm.weight @wkv : tensor<64x64xf32>
  %y = tfm.linear %x, %kv : tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>
  %m = tfm.weight @mixed : tensor<64x64xf32>
  %z = tfm.linear %x, %m : tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>
  %h = tfm.weight @head : tensor<128x64xf32>
  %l = tfm.lm_head %x, %h : tensor<1x64xf32>, tensor<128x64xf32> -> tensor<1x128xf32>
  return %y, %z, %l : tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x128xf32>
}

// -----

// Asked for Q4_0, the projections and the table of an f32 file take its
// blocks (the package writer quantizes them); a matrix whose rows are not
// whole blocks stays f32.
// Q4-LABEL: tfm.global_weight @w.q4_0 : tensor<32x2x16x1xi8> {layout = #tfm_gpu.blocks<q4_0>, stacked = ["w"]}
// Q4: tfm.global_weight @w.q4_0.scales : tensor<32x2x1xf16> {layout = #tfm_gpu.blocks<q4_0, scales>, stacked = ["w"]}
// Q4: tfm.global_weight @down : tensor<64x48xf32>
// Q4: tfm.global_weight @emb.q4_0 : tensor<16x2x16x1xi8>
// Q4-LABEL: func.func @asked_q4_0
// Q4: tfm_gpu.dequantize q4_0
// Q4: tfm_gpu.dequantize q4_0
// Q4: tfm.weight @down : tensor<64x48xf32>
tfm.global_weight @w : tensor<32x64xf32>
tfm.global_weight @down : tensor<64x48xf32>
tfm.global_weight @emb : tensor<16x64xf32>
func.func @asked_q4_0(%tokens: tensor<1xi32>, %h: tensor<1x48xf32>) -> (tensor<1x32xf32>, tensor<1x64xf32>) {
  %e = tfm.weight @emb : tensor<16x64xf32>
  %x = tfm.embedding %tokens, %e : tensor<1xi32>, tensor<16x64xf32> -> tensor<1x64xf32>
  %w = tfm.weight @w : tensor<32x64xf32>
  %y = tfm.linear %x, %w : tensor<1x64xf32>, tensor<32x64xf32> -> tensor<1x32xf32>
  %d = tfm.weight @down : tensor<64x48xf32>
  %z = tfm.linear %h, %d : tensor<1x48xf32>, tensor<64x48xf32> -> tensor<1x64xf32>
  return %y, %z : tensor<1x32xf32>, tensor<1x64xf32>
}

// -----

// The k-quants keep their blocks as the CPU unpacks them: Q4_K's nibbles
// (kquant4, scales and minimums), a stack of Q4_K and Q6_K as int8 in
// blocks of 16 (kquant), Q6_K alone without minimums (they are zero). A
// stack of Q4_0 and Q4_K stays f32.
// STORED-LABEL: tfm.global_weight @wo.kquant4 : tensor<32x8x16x1xi8> {layout = #tfm_gpu.blocks<kquant4>, stacked = ["wo"]}
// STORED: tfm.global_weight @wo.kquant4.scales : tensor<32x8x1xf32> {layout = #tfm_gpu.blocks<kquant4, scales>, stacked = ["wo"]}
// STORED: tfm.global_weight @wo.kquant4.mins : tensor<32x8x1xf32> {layout = #tfm_gpu.blocks<kquant4, mins>, stacked = ["wo"]}
// STORED: tfm.global_weight @wqkv.kquant : tensor<48x16x16x1xi8> {layout = #tfm_gpu.blocks<kquant>, stacked = ["wq", "wk", "wv"]}
// STORED: tfm.global_weight @wqkv.kquant.mins : tensor<48x16x1xf32> {layout = #tfm_gpu.blocks<kquant, mins>, stacked = ["wq", "wk", "wv"]}
// STORED: tfm.global_weight @down.kquant : tensor<32x16x16x1xi8> {layout = #tfm_gpu.blocks<kquant>, stacked = ["down"]}
// STORED-NOT: @down.kquant.mins
// STORED: tfm.global_weight @mixed : tensor<32x256xf32> {stacked = ["wg", "wu"], stored = #tfm.stored<q4_0, q4_k>}
// STORED-LABEL: func.func @kquants
// STORED: tfm_gpu.dequantize kquant4 %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x8x16x1xi8>, tensor<32x8x1xf32>, tensor<32x8x1xf32> -> tensor<32x256xf32>
// STORED: tfm_gpu.dequantize kquant %{{.*}}, %{{.*}}, %{{.*}} : tensor<48x16x16x1xi8>, tensor<48x16x1xf32>, tensor<48x16x1xf32> -> tensor<48x256xf32>
// STORED: tfm_gpu.dequantize kquant %{{.*}}, %{{.*}} : tensor<32x16x16x1xi8>, tensor<32x16x1xf32> -> tensor<32x256xf32>
tfm.global_weight @wo : tensor<32x256xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @wqkv : tensor<48x256xf32> {stacked = ["wq", "wk", "wv"], stored = #tfm.stored<q4_k, q4_k, q6_k>}
tfm.global_weight @down : tensor<32x256xf32> {stored = #tfm.stored<q6_k>}
tfm.global_weight @mixed : tensor<32x256xf32> {stacked = ["wg", "wu"], stored = #tfm.stored<q4_0, q4_k>}
func.func @kquants(%x: tensor<1x256xf32>) -> (tensor<1x32xf32>, tensor<1x48xf32>, tensor<1x32xf32>, tensor<1x32xf32>) {
  %o = tfm.weight @wo : tensor<32x256xf32>
  %a = tfm.linear %x, %o : tensor<1x256xf32>, tensor<32x256xf32> -> tensor<1x32xf32>
  %qkv = tfm.weight @wqkv : tensor<48x256xf32>
  %b = tfm.linear %x, %qkv : tensor<1x256xf32>, tensor<48x256xf32> -> tensor<1x48xf32>
  %d = tfm.weight @down : tensor<32x256xf32>
  %c = tfm.linear %x, %d : tensor<1x256xf32>, tensor<32x256xf32> -> tensor<1x32xf32>
  %m = tfm.weight @mixed : tensor<32x256xf32>
  %e = tfm.linear %x, %m : tensor<1x256xf32>, tensor<32x256xf32> -> tensor<1x32xf32>
  return %a, %b, %c, %e : tensor<1x32xf32>, tensor<1x48xf32>, tensor<1x32xf32>, tensor<1x32xf32>
}
