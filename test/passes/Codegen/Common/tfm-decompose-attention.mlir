// RUN: tfmc-opt %s -tfm-decompose-attention -split-input-file | FileCheck %s

// Scores over [heads, queries, keys] read KV head h floordiv (heads / kv_heads);
// the causal mask hides keys past offset + query; softmax is max-shifted.
// CHECK-DAG: #[[KEYMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d0 floordiv 2, d3)>
// CHECK-LABEL: func.func @attention_gqa
func.func @attention_gqa(%q: tensor<4x16xf32>, %k: tensor<8x8xf32>, %v: tensor<8x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [4, 4, 4]
  // CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KEYMAP]], #{{.*}}]
  // CHECK-SAME: outs(%{{.*}} : tensor<4x4x8xf32>)
  // CHECK: arith.cmpi ugt
  // CHECK: arith.maximumf
  // CHECK: math.exp
  // CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<4x4x4xf32> into tensor<4x16xf32>
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// A bidirectional mask hides nothing.
// CHECK-LABEL: func.func @attention_bidirectional
func.func @attention_bidirectional(%q: tensor<4x16xf32>, %k: tensor<4x4xf32>, %v: tensor<4x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK-NOT: arith.cmpi
  // CHECK: return
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<4x16xf32>, tensor<4x4xf32>, tensor<4x4xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<bidirectional>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// Cached keys: the key dimension of the scores follows the rows given.
// CHECK-LABEL: func.func @attention_cached
// CHECK-SAME: %[[K:[^:]*]]: tensor<?x8xf32>
func.func @attention_cached(%q: tensor<1x16xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>, %pos: index) -> tensor<1x16xf32> {
  // CHECK: %[[ROWS:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x8xf32>
  // CHECK: %[[KROWS:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x8xf32>
  // CHECK: tensor.expand_shape %[[K]] {{\[}}[0], [1, 2]] output_shape [%[[KROWS]], 2, 4]
  // CHECK: tensor.empty(%[[ROWS]]) : tensor<4x1x?xf32>
  %init = tensor.empty() : tensor<1x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<1x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>) offset(%pos) outs(%init : tensor<1x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>} -> tensor<1x16xf32>
  return %o : tensor<1x16xf32>
}

// -----

// Head-major cached keys ([kv_heads, keys, head_dim]) are read as they are:
// no reshape, and the key map puts the kv head first.
// CHECK-DAG: #[[HEADMAJOR:.*]] = affine_map<(d0, d1, d2, d3) -> (d0 floordiv 2, d2, d3)>
// CHECK-LABEL: func.func @attention_head_major
// CHECK-SAME: %[[K:[^:]*]]: tensor<2x?x4xf32>
func.func @attention_head_major(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf32>, %v: tensor<2x?x4xf32>, %pos: index) -> tensor<1x16xf32> {
  // CHECK: %[[KEYS:.*]] = tensor.dim %[[K]], %c1 : tensor<2x?x4xf32>
  // CHECK-NOT: tensor.expand_shape %[[K]]
  // CHECK: tensor.empty(%[[KEYS]]) : tensor<4x1x?xf32>
  // CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[HEADMAJOR]], #{{.*}}]
  %init = tensor.empty() : tensor<1x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<1x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>) offset(%pos) outs(%init : tensor<1x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>} -> tensor<1x16xf32>
  return %o : tensor<1x16xf32>
}

// -----

// Keys and values of an f16 cache are widened to f32 where the score and
// output contractions read them.
// CHECK-LABEL: func.func @attention_f16_cache
func.func @attention_f16_cache(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf16>, %v: tensor<2x?x4xf16>, %pos: index) -> tensor<1x16xf32> {
  // CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf32>, tensor<2x?x4xf16>)
  // CHECK: ^bb0(%[[Q:.*]]: f32, %[[K:.*]]: f16, %[[ACC:.*]]: f32):
  // CHECK:   %[[WIDE:.*]] = arith.extf %[[K]] : f16 to f32
  // CHECK:   arith.mulf %[[Q]], %[[WIDE]] : f32
  // CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x1x?xf32>, tensor<2x?x4xf16>)
  // CHECK: ^bb0(%[[P:.*]]: f32, %[[V:.*]]: f16, %{{.*}}: f32):
  // CHECK:   %[[WIDEV:.*]] = arith.extf %[[V]] : f16 to f32
  // CHECK:   arith.mulf %[[P]], %[[WIDEV]] : f32
  %init = tensor.empty() : tensor<1x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<1x16xf32>, tensor<2x?x4xf16>, tensor<2x?x4xf16>) offset(%pos) outs(%init : tensor<1x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>} -> tensor<1x16xf32>
  return %o : tensor<1x16xf32>
}

// -----

// A sliding window also hides keys at or before position - window.
// CHECK-LABEL: func.func @attention_window
func.func @attention_window(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[HIDDEN:.*]] = arith.cmpi ugt, %[[KEY:.*]], %[[POSITION:.*]] : index
  // CHECK: %[[REACH:.*]] = arith.addi %[[KEY]], %c3 : index
  // CHECK: %[[OLD:.*]] = arith.cmpi ule, %[[REACH]], %[[POSITION]] : index
  // CHECK: arith.ori %[[HIDDEN]], %[[OLD]] : i1
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// In a ring of R slots key row j holds position p - d, d = (p + R - j) mod R:
// hidden when d > p (before position 0) or d >= window.
// CHECK-LABEL: func.func @attention_ring
func.func @attention_ring(%q: tensor<4x16xf32>, %k: tensor<2x?x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[POSITION:.*]] = arith.addi
  // CHECK: %[[SHIFTED:.*]] = arith.addi %[[POSITION]], %c7 : index
  // CHECK: %[[BACK:.*]] = arith.subi %[[SHIFTED]], %{{.*}} : index
  // CHECK: %[[DISTANCE:.*]] = arith.remui %[[BACK]], %c7 : index
  // CHECK: %[[BEFORE:.*]] = arith.cmpi ugt, %[[DISTANCE]], %[[POSITION]] : index
  // CHECK: %[[OLD:.*]] = arith.cmpi uge, %[[DISTANCE]], %c3 : index
  // CHECK: arith.ori %[[BEFORE]], %[[OLD]] : i1
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, ring = 7 : i64} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// ALiBi subtracts slope[h] * (position - key) from each scaled score.
// CHECK-LABEL: func.func @attention_alibi
func.func @attention_alibi(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %slopes: tensor<4xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[SCALED:.*]] = arith.mulf
  // CHECK: %[[KEY:.*]] = linalg.index 2 : index
  // CHECK: %[[POSITION:.*]] = arith.addi
  // CHECK: %[[DISTANCE:.*]] = arith.subi %[[POSITION]], %[[KEY]] : index
  // CHECK: %[[HEAD:.*]] = linalg.index 0 : index
  // CHECK: %[[SLOPE:.*]] = tensor.extract %{{.*}}[%[[HEAD]]] : tensor<4xf32>
  // CHECK: %[[BACK:.*]] = arith.sitofp %{{.*}} : i64 to f32
  // CHECK: %[[BIAS:.*]] = arith.mulf %[[SLOPE]], %[[BACK]] : f32
  // CHECK: arith.subf %[[SCALED]], %[[BIAS]] : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) offset(%pos) alibi(%slopes : tensor<4xf32>) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// T5's relative position bias: no 1/sqrt(head_dim) scaling; each score adds
// table[bucket, head], the bucket of key - query position counted from
// integer steps (8 bidirectional buckets, 4 a side: distances 0 and 1
// exact, 2 and 3 sharing bucket 2, then one step, at 4, to the last bucket
// with max_distance 6).
// CHECK-LABEL: func.func @attention_relative_bias
func.func @attention_relative_bias(%q: tensor<4x16xf32>, %k: tensor<4x16xf32>, %table: tensor<8x4xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: linalg.yield
  // CHECK: linalg.generic
  // CHECK-NEXT: ^bb0(%[[SCORE:.*]]: f32, %{{.*}}: f32):
  // CHECK-NOT: arith.mulf
  // CHECK: %[[KEY:.*]] = linalg.index 2 : index
  // CHECK: %[[POSITION:.*]] = arith.addi
  // CHECK: %[[DISTANCE:.*]] = arith.subi %[[POSITION]], %[[KEY]] : index
  // CHECK: %[[RELATIVE:.*]] = arith.subi %{{.*}}, %[[DISTANCE]] : index
  // CHECK: arith.cmpi sgt, %[[RELATIVE]]
  // CHECK: arith.minui
  // CHECK-NOT: arith.cmpi uge
  // CHECK: arith.cmpi uge, %{{.*}}, %c4
  // CHECK-NOT: arith.cmpi uge
  // CHECK: %[[BUCKET:.*]] = arith.addi
  // CHECK: %[[HEAD:.*]] = linalg.index 0 : index
  // CHECK: %[[BIAS:.*]] = tensor.extract %{{.*}}[%[[BUCKET]], %[[HEAD]]] : tensor<8x4xf32>
  // CHECK: arith.addf %[[SCORE]], %[[BIAS]] : f32
  // CHECK-NOT: arith.select
  // CHECK: linalg.yield
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) offset(%pos) relative_bias(%table : tensor<8x4xf32>) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 6 : i64, scale = 1.0 : f32, mask = #tfm.mask<bidirectional>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// Soft-capping (Gemma 2) squashes each scaled score, cap * tanh(s / cap),
// before the mask hides it.
// CHECK-LABEL: func.func @attention_softcap
func.func @attention_softcap(%q: tensor<4x16xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : f32
  // CHECK: %[[SHRUNK:.*]] = arith.mulf %[[SCALED]], %cst{{.*}} : f32
  // CHECK: %[[TANH:.*]] = math.tanh %[[SHRUNK]] : f32
  // CHECK: %[[CAPPED:.*]] = arith.mulf %[[TANH]], %cst{{.*}} : f32
  // CHECK: arith.select %{{.*}}, %cst{{.*}}, %[[CAPPED]] : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 50.0 : f32, mask = #tfm.mask<causal>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}
