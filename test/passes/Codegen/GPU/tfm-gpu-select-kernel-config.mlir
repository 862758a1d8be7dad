// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-kernel-config=tensor-cores=true | FileCheck %s
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-kernel-config=arch=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: tfmc-opt %s -split-input-file -tfm-gpu-select-kernel-config=attention-splits=2 | FileCheck %s --check-prefix=SIMT

#x = affine_map<(d0, d1, d2) -> (d1, d2)>
#w = affine_map<(d0, d1, d2) -> (d0, d2)>
#o = affine_map<(d0, d1, d2) -> (d1, d0)>

// A decode GEMV: a warp per 4 outputs on sm_80 (108 SMs: 1024 warps fill
// them), 2 on sm_90 (132 SMs want more warps), 16-byte loads, a fill that
// only initialises the reduction gets no kernel of its own.
// CHECK-LABEL: func.func @gemv
// CHECK: linalg.fill
// CHECK-NOT: tfm_gpu.kernel
// CHECK-SAME: -> tensor<1x4096xf32>
// CHECK: linalg.generic
// CHECK-SAME: tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [16, 0, 0], subgroup = [4, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 512>
// SM90-LABEL: func.func @gemv
// SM90: #tfm_gpu.kernel<warp_reduction, workgroup = [8, 0, 0], subgroup = [2, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 512>
func.func @gemv(%x: tensor<1x2048xf32>, %w: tensor<4096x2048xf32>) -> tensor<1x4096xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x4096xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x2048xf32>, tensor<4096x2048xf32>) outs(%f : tensor<1x4096xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}

// -----

#x = affine_map<(d0, d1, d2) -> (d1, d2)>
#w = affine_map<(d0, d1, d2) -> (d0, d2)>
#o = affine_map<(d0, d1, d2) -> (d1, d0)>

// A prefill projection over f16 weights: tensor cores, its activations
// rounded to f16 first (an elementwise kernel); warps of 32 rows x 16
// columns. Without tensor cores (the default): 16x16 threads of 4x4 f32
// tiles.
// CHECK-LABEL: func.func @gemm_f16
// CHECK: %[[ROUNDED:[0-9]+]] = linalg.generic {{.*}}tfm_gpu.kernel = #tfm_gpu.kernel<elementwise
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.generic {{.*}} ins(%[[ROUNDED]], %{{.*}} : tensor<64x256xf16>, tensor<128x256xf16>)
// CHECK-SAME: tfm_gpu.kernel = #tfm_gpu.kernel<gemm_mma, workgroup = [32, 64, 0], subgroup = [16, 32, 0], block = [64, 2, 1], chunk = 16>
// SIMT-LABEL: func.func @gemm_f16
// SIMT-NOT: arith.truncf
// SIMT: #tfm_gpu.kernel<gemm_simt, workgroup = [64, 64, 0], thread = [4, 4, 0], block = [16, 16, 1], chunk = 8>
func.func @gemm_f16(%x: tensor<64x256xf32>, %w: tensor<128x256xf16>) -> tensor<64x128xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<64x256xf32>, tensor<128x256xf16>) outs(%f : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f16, %acc: f32):
    %bb = arith.extf %b : f16 to f32
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// Elementwise: 4 f32 a thread, 16 threads along a row, 4 rows a block.
// CHECK-LABEL: func.func @add
// CHECK: #tfm_gpu.kernel<elementwise, workgroup = [4, 64], thread = [1, 4], block = [16, 4, 1], vector_width = 4>
func.func @add(%a: tensor<32x64xf32>, %b: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// Decode attention: the keys split in ranges of 256 cache positions (4
// for a cache of 1024), or as many as attention-splits says; prefill: 4
// query rows a block, a warp each.
// CHECK-LABEL: func.func @attention_decode
// CHECK: tfm.attention_kernel
// CHECK-SAME: tfm_gpu.kernel = #tfm_gpu.kernel<attention_decode, workgroup = [1, 1], block = [128, 1, 1], chunk = 1, splits = 4>
// SIMT-LABEL: func.func @attention_decode
// SIMT: #tfm_gpu.kernel<attention_decode, workgroup = [1, 1], block = [128, 1, 1], chunk = 1, splits = 2>
func.func @attention_decode(%q: tensor<1x64xf32>, %cache: tensor<2x1024x16xf32>, %n: index, %pos: index) -> tensor<1x64xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0] [2, %n, 16] [1, 1, 1] : tensor<2x1024x16xf32> to tensor<2x?x16xf32>
  %init = tensor.empty() : tensor<1x64xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<1x64xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>) offset(%pos) outs(%init : tensor<1x64xf32>) {mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64} -> tensor<1x64xf32>
  return %o : tensor<1x64xf32>
}

// CHECK-LABEL: func.func @attention_prefill
// CHECK: tfm_gpu.kernel = #tfm_gpu.kernel<attention_prefill, workgroup = [4, 1], block = [128, 1, 1], chunk = 1>
func.func @attention_prefill(%q: tensor<32x64xf32>, %cache: tensor<2x256x16xf32>, %n: index, %pos: index) -> tensor<32x64xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0] [2, %n, 16] [1, 1, 1] : tensor<2x256x16xf32> to tensor<2x?x16xf32>
  %init = tensor.empty() : tensor<32x64xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<32x64xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>) offset(%pos) outs(%init : tensor<32x64xf32>) {mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64} -> tensor<32x64xf32>
  return %o : tensor<32x64xf32>
}

// -----

// A mixture of experts' products gather the chosen expert's rows in their
// body: a warp reduction whose loads are as wide as the gathered rows
// allow, 16 bytes for whole rows of the weights, one element for rows of a
// view that starts one element into each row.
// CHECK-LABEL: func.func @gathered_rows
// CHECK: linalg.generic
// CHECK-SAME: tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, {{.*}}vector_width = 4, chunk = 128>
// CHECK: linalg.generic
// CHECK-SAME: tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 1, 4, 0], subgroup = [0, 1, 1, 0], block = [128, 1, 1], chunk = 128>
#x = affine_map<(t, k, h, d) -> (t, d)>
#e = affine_map<(t, k, h, d) -> (t, k)>
#o = affine_map<(t, k, h, d) -> (t, k, h)>
func.func @gathered_rows(%x: tensor<1x200xf32>, %experts: tensor<1x2xi32>, %gate: tensor<512x200xf32>, %padded: tensor<512x208xf32>) -> (tensor<1x2x128xf32>, tensor<1x2x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %c128 = arith.constant 128 : index
  %e = tensor.empty() : tensor<1x2x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x128xf32>) -> tensor<1x2x128xf32>
  %whole = linalg.generic {indexing_maps = [#x, #e, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %experts : tensor<1x200xf32>, tensor<1x2xi32>) outs(%f : tensor<1x2x128xf32>) {
  ^bb0(%a: f32, %expert: i32, %acc: f32):
    %i = arith.index_cast %expert : i32 to index
    %first = arith.muli %i, %c128 : index
    %h = linalg.index 2 : index
    %row = arith.addi %first, %h : index
    %d = linalg.index 3 : index
    %w = tensor.extract %gate[%row, %d] : tensor<512x200xf32>
    %p = arith.mulf %a, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x128xf32>
  %view = tensor.extract_slice %padded[0, 1] [512, 200] [1, 1] : tensor<512x208xf32> to tensor<512x200xf32>
  %offset = linalg.generic {indexing_maps = [#x, #e, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %experts : tensor<1x200xf32>, tensor<1x2xi32>) outs(%f : tensor<1x2x128xf32>) {
  ^bb0(%a: f32, %expert: i32, %acc: f32):
    %i = arith.index_cast %expert : i32 to index
    %first = arith.muli %i, %c128 : index
    %h = linalg.index 2 : index
    %row = arith.addi %first, %h : index
    %d = linalg.index 3 : index
    %w = tensor.extract %view[%row, %d] : tensor<512x200xf32>
    %p = arith.mulf %a, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x128xf32>
  return %whole, %offset : tensor<1x2x128xf32>, tensor<1x2x128xf32>
}

// -----

// A decode GEMV over bf16 weights: each lane loads 16 bytes of the
// weights (8 elements) a step, and two 16-byte pieces of the f32
// activations.
// CHECK-LABEL: func.func @gemv_bf16
// CHECK: linalg.generic
// CHECK-SAME: tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, {{.*}}vector_width = 8, chunk = 1024>
#x = affine_map<(d0, d1, d2) -> (d1, d2)>
#w = affine_map<(d0, d1, d2) -> (d0, d2)>
#o = affine_map<(d0, d1, d2) -> (d1, d0)>
func.func @gemv_bf16(%x: tensor<1x2048xf32>, %w: tensor<4096x2048xbf16>) -> tensor<1x4096xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x4096xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x2048xf32>, tensor<4096x2048xbf16>) outs(%f : tensor<1x4096xf32>) {
  ^bb0(%a: f32, %b: bf16, %acc: f32):
    %bw = arith.extf %b : bf16 to f32
    %m = arith.mulf %a, %bw : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}

// -----

// A decode GEMV over GGUF blocks reads them where it multiplies them: a
// warp reduction whose lanes load 16 bytes of quants a step (Q4_0: a block
// of 32 values, Q8_0: half a block), whatever the row's length.
// CHECK-LABEL: func.func @gemv_blocks
// CHECK: tfm_gpu.dequantize q4_0
// CHECK: tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, {{.*}}vector_width = 32, chunk = 1024>
// CHECK: tfm_gpu.dequantize q8_0
// CHECK: tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, {{.*}}vector_width = 16, chunk = 512>
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @gemv_blocks(%x: tensor<1x64xf32>, %q4: tensor<8x2x16x1xi8>, %q8: tensor<8x2x32x1xi8>, %s: tensor<8x2x1xf16>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %w4 = tfm_gpu.dequantize q4_0 %q4, %s : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
  %r4 = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w4 : tensor<1x64xf32>, tensor<8x64xf32>) outs(%f : tensor<1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<1x8xf32>
  %w8 = tfm_gpu.dequantize q8_0 %q8, %s : tensor<8x2x32x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
  %r8 = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w8 : tensor<1x64xf32>, tensor<8x64xf32>) outs(%f : tensor<1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<1x8xf32>
  return %r4, %r8 : tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// A prefill GEMM reads the matrix written out in f32 first, by an
// elementwise kernel over its blocks (a block per row of threads, the
// nibble on y); the decode GEMV of the same matrix still reads the blocks.
// CHECK-LABEL: func.func @gemm_blocks
// CHECK: %[[W:.*]] = tfm_gpu.dequantize q4_0
// CHECK: %[[VALUES:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x16xi8>, tensor<16xf16>) outs(%{{.*}} : tensor<16x2x16xf32>) attrs = {tfm_gpu.kernel = #tfm_gpu.kernel<elementwise
// CHECK: linalg.index 1
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[VALUES]] {{\[}}[0, 1, 2]] : tensor<16x2x16xf32> into tensor<512xf32>
// CHECK: %[[F32:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [8, 64] : tensor<512xf32> into tensor<8x64xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[F32]] : tensor<32x64xf32>, tensor<8x64xf32>) {{.*}}tfm_gpu.kernel = #tfm_gpu.kernel<gemm_simt
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x64xf32>, tensor<8x64xf32>) {{.*}}tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @gemm_blocks(%x: tensor<32x64xf32>, %t: tensor<1x64xf32>, %q: tensor<8x2x16x1xi8>, %s: tensor<8x2x1xf16>) -> (tensor<32x8xf32>, tensor<1x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = tfm_gpu.dequantize q4_0 %q, %s : tensor<8x2x16x1xi8>, tensor<8x2x1xf16> -> tensor<8x64xf32>
  %e = tensor.empty() : tensor<32x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x8xf32>) -> tensor<32x8xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<32x64xf32>, tensor<8x64xf32>) outs(%f : tensor<32x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<32x8xf32>
  %e1 = tensor.empty() : tensor<1x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %d = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]} ins(%t, %w : tensor<1x64xf32>, tensor<8x64xf32>) outs(%f1 : tensor<1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<1x8xf32>
  return %r, %d : tensor<32x8xf32>, tensor<1x8xf32>
}
