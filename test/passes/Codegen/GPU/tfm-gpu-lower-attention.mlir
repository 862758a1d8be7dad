// RUN: tfmc-opt %s -split-input-file -tfm-gpu-lower-attention -canonicalize -cse | FileCheck %s

// Flash-decoding over 2 key ranges: blocks over (row, head, split); the
// block's 4 warps walk the split's keys in turn, each with an online
// softmax (running max, sum and a warp-wide accumulator of the head
// dimension); their states meet in shared memory and one warp merges
// them into the split's state. A second kernel, blocks over heads, merges
// the splits' states and normalises.
// CHECK-LABEL: func.func @attention_decode
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (1, 4, 2)
// CHECK-COUNT-2: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<4xf32>
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<4x16xf32>
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 iter_args({{.*}}) -> (f32, f32, vector<16xf32>)
// CHECK:     vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
// CHECK:     math.exp
// CHECK: } {mapping = [#gpu.warp<x>]}
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK: } {mapping = [#gpu.warp<x>]}
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<attention_decode, workgroup = [1, 1], block = [128, 1, 1], chunk = 1, splits = 2>}
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (1, 4)
// CHECK:   scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<attention_decode, workgroup = [1, 1], block = [32, 1, 1], chunk = 1>}
// CHECK-NOT: tfm.attention_kernel
func.func @attention_decode(%q: tensor<1x64xf32>, %cache: tensor<2x1024x16xf32>, %n: index, %pos: index) -> tensor<1x64xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0] [2, %n, 16] [1, 1, 1] : tensor<2x1024x16xf32> to tensor<2x?x16xf32>
  %init = tensor.empty() : tensor<1x64xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<1x64xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>) offset(%pos) outs(%init : tensor<1x64xf32>) {mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64, tfm_gpu.kernel = #tfm_gpu.kernel<attention_decode, workgroup = [1, 1], block = [128, 1, 1], chunk = 1, splits = 2>} -> tensor<1x64xf32>
  return %o : tensor<1x64xf32>
}

// -----

// Prefill: blocks over (groups of 4 query rows, heads), a warp per row
// walking the keys its causal mask lets it see.
// CHECK-LABEL: func.func @attention_prefill
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (8, 4)
// CHECK:   scf.forall (%{{.*}}) in (4)
// CHECK:     scf.for {{.*}} -> (f32, f32, vector<16xf32>)
// CHECK:   } {mapping = [#gpu.warp<x>]}
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<attention_prefill
// CHECK-NOT: tfm.attention_kernel
func.func @attention_prefill(%q: tensor<32x64xf32>, %cache: tensor<2x256x16xf32>, %n: index, %pos: index) -> tensor<32x64xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0] [2, %n, 16] [1, 1, 1] : tensor<2x256x16xf32> to tensor<2x?x16xf32>
  %init = tensor.empty() : tensor<32x64xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<32x64xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>) offset(%pos) outs(%init : tensor<32x64xf32>) {mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64, tfm_gpu.kernel = #tfm_gpu.kernel<attention_prefill, workgroup = [4, 1], block = [128, 1, 1], chunk = 1>} -> tensor<32x64xf32>
  return %o : tensor<32x64xf32>
}

// -----

// Soft-capped scores (Gemma 2): each key's score, q . k scaled, becomes
// cap * tanh(score / cap) before the online softmax takes it.
// CHECK-LABEL: func.func @attention_softcap
// CHECK: scf.for {{.*}} -> (f32, f32, vector<16xf32>)
// CHECK:   %[[DOT:.*]] = vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
// CHECK:   %[[SHRUNK:.*]] = arith.mulf %[[DOT]], %cst{{.*}} : f32
// CHECK:   %[[TANH:.*]] = math.tanh %[[SHRUNK]] : f32
// CHECK:   %[[SCORE:.*]] = arith.mulf %[[TANH]], %cst{{.*}} : f32
// CHECK:   arith.maximumf %{{.*}}, %[[SCORE]] : f32
func.func @attention_softcap(%q: tensor<32x64xf32>, %cache: tensor<2x256x16xf32>, %n: index, %pos: index) -> tensor<32x64xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0] [2, %n, 16] [1, 1, 1] : tensor<2x256x16xf32> to tensor<2x?x16xf32>
  %init = tensor.empty() : tensor<32x64xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<32x64xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>) offset(%pos) outs(%init : tensor<32x64xf32>) {mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 50.0 : f32, tfm_gpu.kernel = #tfm_gpu.kernel<attention_prefill, workgroup = [4, 1], block = [128, 1, 1], chunk = 1>} -> tensor<32x64xf32>
  return %o : tensor<32x64xf32>
}
