// RUN: tfmc-opt %s -tfm-cpu-tile-attention -split-input-file | FileCheck %s

// The kernel is tiled over (query row, head), one of each per iteration of
// one parallel loop; each tile reads its query columns, its key/value head's
// columns (query head h reads key/value head h / 2), all keys, and sits at
// position offset + row. Each tile reads its query once, stops at its own
// position (causal: offset + row + 1 keys) and walks the keys in blocks of
// 4 carrying the running maximum, sum and output vector; per block one
// vector of scores is all that exists. Whole blocks are unrolled (4 dot
// products kept as partial sums, reduced together by one tree of
// shuffles); the last, partial block walks its keys one at a time.
// CHECK-DAG: #[[$QCOL:.*]] = affine_map<(d0) -> (d0 * 4)>
// CHECK-DAG: #[[$KVCOL:.*]] = affine_map<(d0) -> ((d0 floordiv 2) * 4)>
// CHECK-DAG: #[[$AT:.*]] = affine_map<(d0)[s0] -> (d0 + s0)>
// CHECK-LABEL: func.func @flash
// CHECK-SAME: (%[[Q:.*]]: tensor<2x16xf32>, %[[K:.*]]: tensor<?x8xf32>, %[[V:.*]]: tensor<?x8xf32>, %[[POS:.*]]: index)
// CHECK: scf.forall (%[[ROW:.*]], %[[HEAD:.*]]) in (2, 4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x16xf32>)
// CHECK:   %[[QCOL:.*]] = affine.apply #[[$QCOL]](%[[HEAD]])
// CHECK:   %[[QTILE:.*]] = tensor.extract_slice %[[Q]][%[[ROW]], %[[QCOL]]] [1, 4] [1, 1]
// CHECK:   %[[KVCOL:.*]] = affine.apply #[[$KVCOL]](%[[HEAD]])
// CHECK:   %[[KTILE:.*]] = tensor.extract_slice %[[K]][0, %[[KVCOL]]] [%{{.*}}, 4] [1, 1]
// CHECK:   %[[VTILE:.*]] = tensor.extract_slice %[[V]][0, %{{.*}}] [%{{.*}}, 4] [1, 1]
// CHECK:   %[[OTILE:.*]] = tensor.extract_slice %[[OUT]][%[[ROW]], %[[QCOL]]] [1, 4] [1, 1]
// CHECK:   %[[AT:.*]] = affine.apply #[[$AT]](%[[ROW]])[%[[POS]]]
// CHECK:   %[[KEYS:.*]] = tensor.dim %[[KTILE]]
// CHECK:   vector.transfer_read %[[QTILE]]{{.*}} : tensor<1x4xf32>, vector<4xf32>
// CHECK:   %[[OWN:.*]] = arith.addi %[[AT]], %c1
// CHECK:   %[[VISIBLE:.*]] = arith.minui %[[OWN]], %[[KEYS]]
// CHECK:   %[[COUNT:.*]] = arith.divui %[[VISIBLE]], %[[B:.*]] : index
// CHECK:   %[[WHOLE:.*]] = arith.muli %[[COUNT]], %[[B]] : index
// Whole blocks are software-pipelined: block 0's scores before the loop,
// block i + 1's scores in the iteration that folds block i, the last block
// folded after the loop.
// CHECK:   %[[ANY:.*]] = arith.cmpi ugt, %[[WHOLE]], %{{.*}} : index
// CHECK:   %[[FULL:.*]]:3 = scf.if %[[ANY]] -> (f32, f32, vector<4xf32>)
// CHECK:     %[[LAST:.*]] = arith.subi %[[WHOLE]], %[[B2:.*]] : index
// CHECK-COUNT-4: vector.transfer_read %[[KTILE]]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [2, 3, 6, 7]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7]
// CHECK:     %[[FIRSTSCORES:.*]] = arith.addf {{.*}} : vector<4xf32>
// CHECK:     %[[PIPE:.*]]:4 = scf.for %[[AT:.*]] = %{{.*}} to %[[LAST]] step %[[B2]] iter_args({{.*}}, %[[SCORES:.*]] = %[[FIRSTSCORES]]) -> (f32, f32, vector<4xf32>, vector<4xf32>)
// CHECK:       %[[NEXT:.*]] = arith.addi %[[AT]], %[[B2]]
// CHECK-COUNT-4: vector.transfer_read %[[KTILE]]
// CHECK:       vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7]
// CHECK:       %[[NEXTSCORES:.*]] = arith.addf {{.*}} : vector<4xf32>
// CHECK:       vector.reduction <maxnumf>, %[[SCORES]]
// CHECK:       math.exp {{.*}} : vector<4xf32>
// CHECK-COUNT-4: vector.fma
// CHECK:       scf.yield {{.*}}, %[[NEXTSCORES]] : f32, f32, vector<4xf32>, vector<4xf32>
// The kernel's loops carry its configuration (for the cache prefetch).
// CHECK:     } {tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>}
// CHECK:     vector.reduction <maxnumf>, %[[PIPE]]#3
// CHECK-COUNT-4: vector.fma
// CHECK:     scf.yield
// CHECK:   } else {
// CHECK:     scf.yield
// CHECK:   %[[BLOCKS:.*]]:3 = scf.for %[[FIRST:.*]] = %[[WHOLE]] to %[[VISIBLE]] step %[[B]] iter_args(%{{.*}} = %[[FULL]]#0, %{{.*}} = %[[FULL]]#1, %{{.*}} = %[[FULL]]#2) -> (f32, f32, vector<4xf32>)
// CHECK:     scf.for {{.*}} -> (vector<4xf32>)
// CHECK:       vector.transfer_read %[[KTILE]][%{{.*}}, %{{.*}}]
// CHECK:       vector.reduction <add>
// CHECK:       vector.insert
// CHECK:     vector.reduction <maxnumf>
// CHECK:     math.exp {{.*}} : vector<4xf32>
// CHECK:     math.exp {{.*}} : f32
// CHECK:     scf.for {{.*}} -> (vector<4xf32>)
// CHECK:       vector.transfer_read %[[VTILE]][%{{.*}}, %{{.*}}]
// CHECK:       vector.fma
// CHECK:   arith.divf %[[BLOCKS]]#2
// CHECK:   vector.transfer_write %{{.*}}, %[[OTILE]]
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[ROW]], %{{.*}}] [1, 4] [1, 1]
// CHECK: } {tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>}
// CHECK-NOT: tensor<4x2x
func.func @flash(%q: tensor<2x16xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>, %pos: index) -> tensor<2x16xf32> {
  %init = tensor.empty() : tensor<2x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<2x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>) offset(%pos) outs(%init : tensor<2x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<2x16xf32>
  return %o : tensor<2x16xf32>
}

// -----

// Head-major keys and values (the KV cache's layout): the key count is
// dimension 1, and a tile reads the [1, keys, 4] block of kv head h / 2.
// CHECK-LABEL: func.func @flash_head_major
// CHECK-SAME: (%{{.*}}: tensor<1x16xf32>, %[[K:.*]]: tensor<2x?x4xf32>, %[[V:.*]]: tensor<2x?x4xf32>, %{{.*}}: index)
// CHECK: scf.forall (%{{.*}}, %[[HEAD:.*]]) in (1, 4)
// CHECK:   affine.apply #{{.*}}(%[[HEAD]])
// CHECK:   %[[KVHEAD:[a-z0-9_]+]] = affine.apply #{{.*}}(%[[HEAD]])
// CHECK:   %[[KROWS:[a-z0-9_]+]] = tensor.dim %[[K]], %c1
// CHECK:   %[[KTILE:.*]] = tensor.extract_slice %[[K]][%[[KVHEAD]], 0, 0] [1, %[[KROWS]], 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<1x?x4xf32>
// CHECK:   %[[VTILE:.*]] = tensor.extract_slice %[[V]][%[[KVHEAD]], 0, 0] [1, %[[KROWS]], 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<1x?x4xf32>
// CHECK:   %[[KEYS:.*]] = tensor.dim %[[KTILE]], %c1
// CHECK:   arith.minui %{{.*}}, %[[KEYS]]
// CHECK:       vector.transfer_read %[[KTILE]][%c0, %{{.*}}, %{{.*}}]{{.*}} : tensor<1x?x4xf32>, vector<4xf32>
// CHECK:       vector.transfer_read %[[VTILE]][%c0, %{{.*}}, %{{.*}}]{{.*}} : tensor<1x?x4xf32>, vector<4xf32>
func.func @flash_head_major(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf32>, %v: tensor<2x?x4xf32>, %pos: index) -> tensor<1x16xf32> {
  %init = tensor.empty() : tensor<1x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<1x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>) offset(%pos) outs(%init : tensor<1x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<1x16xf32>
  return %o : tensor<1x16xf32>
}

// -----

// Keys and values of an f16 cache: every key and value load reads f16
// lanes and widens them to f32 in registers; the scores, the softmax state
// and the output stay f32.
// CHECK-LABEL: func.func @flash_f16_cache
// CHECK: scf.forall
// CHECK:       %[[K16:.*]] = vector.transfer_read %{{.*}} : tensor<1x?x4xf16>, vector<4xf16>
// CHECK:       arith.extf %[[K16]] : vector<4xf16> to vector<4xf32>
// CHECK:       %[[V16:.*]] = vector.transfer_read %{{.*}} : tensor<1x?x4xf16>, vector<4xf16>
// CHECK:       arith.extf %[[V16]] : vector<4xf16> to vector<4xf32>
// CHECK-NOT: {{(arith.mulf|arith.addf|vector.fma).*}}xf16>
// CHECK: return
func.func @flash_f16_cache(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf16>, %v: tensor<2x?x4xf16>, %pos: index) -> tensor<1x16xf32> {
  %init = tensor.empty() : tensor<1x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<1x16xf32>, tensor<2x?x4xf16>, tensor<2x?x4xf16>) offset(%pos) outs(%init : tensor<1x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<1x16xf32>
  return %o : tensor<1x16xf32>
}

// -----

// Blocks whose width does not divide head_dim (6 features, blocks of 4) are
// not unrolled: every block walks its keys one at a time.
// CHECK-LABEL: func.func @flash_not_unrolled
// CHECK-NOT: vector.shuffle
// CHECK: vector.insert
// CHECK-NOT: vector.shuffle
// CHECK: return
func.func @flash_not_unrolled(%q: tensor<1x12xf32>, %k: tensor<?x6xf32>, %v: tensor<?x6xf32>, %pos: index) -> tensor<1x12xf32> {
  %init = tensor.empty() : tensor<1x12xf32>
  %o = tfm.attention_kernel ins(%q, %k, %v : tensor<1x12xf32>, tensor<?x6xf32>, tensor<?x6xf32>) offset(%pos) outs(%init : tensor<1x12xf32>) {num_heads = 2 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<1x12xf32>
  return %o : tensor<1x12xf32>
}

// -----

// A bidirectional tile walks every key: no position bounds the walk.
// CHECK-LABEL: func.func @flash_bidirectional
// CHECK: scf.forall
// CHECK: %[[KEYS:.*]] = tensor.dim
// CHECK-NOT: arith.minui
// CHECK: arith.divui %[[KEYS]], %c4
func.func @flash_bidirectional(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %pos: index) -> tensor<4x8xf32> {
  %init = tensor.empty() : tensor<4x8xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) offset(%pos) outs(%init : tensor<4x8xf32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// A sliding window of 3 starts the walk at the oldest visible position,
// own position + 1 - min(own position + 1, 3): the keys before it are never
// read.
// CHECK-LABEL: func.func @flash_window
// CHECK: scf.forall
// CHECK: %[[OWN:.*]] = arith.addi %{{.*}}, %c1
// CHECK: %[[SEEN:.*]] = arith.minui %[[OWN]], %c3
// CHECK: %[[OLDEST:.*]] = arith.subi %[[OWN]], %[[SEEN]]
// CHECK: %[[END:.*]] = arith.minui %[[OWN]], %{{.*}}
// CHECK: %[[LENGTH:.*]] = arith.subi %[[END]], %[[OLDEST]]
// CHECK: arith.divui %[[LENGTH]], %c4
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step
func.func @flash_window(%q: tensor<4x16xf32>, %k: tensor<?x8xf32>, %pos: index) -> tensor<4x16xf32> {
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// In a ring of 10 slots the window's positions are one run from the oldest
// position's slot, wrapping to slot 0 at most once: two runs, each walked
// in whole and partial blocks, one after the other.
// CHECK-LABEL: func.func @flash_ring
// CHECK: scf.forall
// CHECK: %[[OWN:.*]] = arith.addi %{{.*}}, %c1
// CHECK: %[[SEEN:.*]] = arith.minui %[[OWN]], %c3
// CHECK: %[[OLDEST:.*]] = arith.subi %[[OWN]], %[[SEEN]]
// CHECK: %[[START:.*]] = arith.remui %[[OLDEST]], %c10
// CHECK: %[[ROOM:.*]] = arith.subi %c10, %[[START]]
// CHECK: %[[BEFORE:.*]] = arith.minui %[[SEEN]], %[[ROOM]]
// CHECK: %[[AFTER:.*]] = arith.subi %[[SEEN]], %[[BEFORE]]
// CHECK: %[[END:.*]] = arith.addi %[[START]], %[[BEFORE]]
// CHECK: %[[RUN1:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %[[END]] step
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[AFTER]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}#0
func.func @flash_ring(%q: tensor<1x16xf32>, %k: tensor<2x?x4xf32>, %pos: index) -> tensor<1x16xf32> {
  %init = tensor.empty() : tensor<1x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<1x16xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32>) offset(%pos) outs(%init : tensor<1x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, ring = 10 : i64, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<1x16xf32>
  return %o : tensor<1x16xf32>
}

// -----

// ALiBi: each tile reads its head's slope and adds slope * (key position -
// query position) to every block of scores before the softmax.
// CHECK-LABEL: func.func @flash_alibi
// CHECK: scf.forall (%{{.*}}, %[[HEAD:.*]]) in (4, 4)
// CHECK: %[[SLOPES:.*]] = tensor.extract_slice %{{.*}}[%[[HEAD]]] [1] [1] : tensor<4xf32> to tensor<1xf32>
// CHECK: %[[SLOPE:.*]] = tensor.extract %[[SLOPES]][%{{.*}}] : tensor<1xf32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[SLOPE]] : f32 to vector<4xf32>
// CHECK: %[[LANES:.*]] = vector.step : vector<4xindex>
// CHECK: %[[DISTANCES:.*]] = arith.sitofp %{{.*}} : vector<4xi64> to vector<4xf32>
// CHECK: vector.fma %[[SPLAT]], %[[DISTANCES]], %{{.*}} : vector<4xf32>
func.func @flash_alibi(%q: tensor<4x16xf32>, %k: tensor<?x16xf32>, %slopes: tensor<4xf32>, %pos: index) -> tensor<4x16xf32> {
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) offset(%pos) alibi(%slopes : tensor<4xf32>) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// T5's relative position bias: each tile reads its head's column of the
// [buckets, heads] table and adds to every block of scores the bias of each
// lane's bucket (causal: the distance back from the query), looked up
// lane by lane; no bias matrix exists.
// CHECK-LABEL: func.func @flash_relative_bias
// CHECK: scf.forall (%{{.*}}, %[[HEAD:.*]]) in (4, 4)
// CHECK: %[[TABLE:.*]] = tensor.extract_slice %{{.*}}[0, %[[HEAD]]] [16, 1] [1, 1] : tensor<16x4xf32> to tensor<16x1xf32>
// CHECK-NOT: arith.constant dense<5.000000e-01>
// CHECK: scf.for
// CHECK: arith.cmpi uge
// CHECK: %[[BIAS:.*]] = tensor.extract %[[TABLE]][%{{.*}}, %{{.*}}] : tensor<16x1xf32>
// CHECK: vector.insert %[[BIAS]]
func.func @flash_relative_bias(%q: tensor<4x16xf32>, %k: tensor<?x16xf32>, %table: tensor<16x4xf32>, %pos: index) -> tensor<4x16xf32> {
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) offset(%pos) relative_bias(%table : tensor<16x4xf32>) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, max_distance = 12 : i64, scale = 1.0 : f32, mask = #tfm.mask<causal>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// Soft-capped scores (Gemma 2): a whole block's score vector is capped at
// once, cap * tanh(scores / cap); the last, partial block caps key by key
// before inserting the score, so that its unread lanes stay -inf.
// CHECK-LABEL: func.func @flash_softcap
// CHECK: %[[INVERSE:.*]] = arith.constant dense<2.000000e-02> : vector<4xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[INVERSE]] : vector<4xf32>
// CHECK: %[[TANH:.*]] = math.tanh %[[SCALED]] : vector<4xf32>
// CHECK: %[[CAP:.*]] = arith.constant dense<5.000000e+01> : vector<4xf32>
// CHECK: arith.mulf %[[CAP]], %[[TANH]] : vector<4xf32>
// CHECK: scf.for {{.*}} -> (vector<4xf32>) {
// CHECK: %[[DOT:.*]] = vector.reduction <add>, %{{.*}} : vector<4xf32> into f32
// CHECK-NEXT: arith.constant 2.000000e-02 : f32
// CHECK-NEXT: %[[SHRUNK:.*]] = arith.mulf %[[DOT]], %{{.*}} : f32
// CHECK-NEXT: %[[ONE:.*]] = math.tanh %[[SHRUNK]] : f32
// CHECK-NEXT: arith.constant 5.000000e+01 : f32
// CHECK-NEXT: %[[CAPPED:.*]] = arith.mulf %{{.*}}, %[[ONE]] : f32
// CHECK-NEXT: vector.insert %[[CAPPED]]
func.func @flash_softcap(%q: tensor<4x16xf32>, %k: tensor<?x8xf32>, %pos: index) -> tensor<4x16xf32> {
  %init = tensor.empty() : tensor<4x16xf32>
  %o = tfm.attention_kernel ins(%q, %k, %k : tensor<4x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>) offset(%pos) outs(%init : tensor<4x16xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 50.0 : f32, mask = #tfm.mask<causal>, tfm_cpu.config = #tfm_cpu.attention<block_keys = 4>} -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}
