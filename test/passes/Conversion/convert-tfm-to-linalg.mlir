// RUN: tfmc-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// Weights stay reads of their declarations: binding them to storage is a
// target's choice.
// CHECK-LABEL: tfm.global_weight @b
tfm.global_weight @b : tensor<4x16xf32>
// CHECK-LABEL: func.func @reads_weights
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
func.func @reads_weights(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[B:.*]] = tfm.weight @b : tensor<4x16xf32>
  // CHECK: linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<4x16xf32>, tensor<4x16xf32>)
  %b = tfm.weight @b : tensor<4x16xf32>
  %y = tfm.add %x, %b : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @add_mul
func.func @add_mul(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
  // CHECK: arith.addf
  // CHECK: linalg.generic
  // CHECK: arith.mulf
  // CHECK-NOT: tfm.{{add|mul}}
  %0 = tfm.add %a, %b : tensor<4x16xf32>
  %1 = tfm.mul %0, %b : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @gelu
func.func @gelu(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: arith.constant 4.471500e-02
  // CHECK: math.tanh
  %0 = tfm.gelu %a : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// BERT's exact GELU: 0.5 x (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu_erf
func.func @gelu_erf(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: arith.constant 0.707106769
  // CHECK: math.erf
  // CHECK-NOT: math.tanh
  %0 = tfm.gelu %a {approximation = #tfm.gelu<erf>} : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @silu
func.func @silu(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: math.exp
  // CHECK: arith.divf
  %0 = tfm.silu %a : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// ReLU: max(x, 0) with NaN kept (maximumf, not maxnumf).
// CHECK-LABEL: func.func @relu
func.func @relu(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: arith.maximumf %[[X]], %[[ZERO]] : f32
  %0 = tfm.relu %a : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A row reduction of squares, then one normalising generic.
// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[SUMS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
  // CHECK-SAME: outs(%{{.*}} : tensor<4xf32>)
  // CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[SUMS]], %{{.*}} : tensor<4x16xf32>, tensor<4xf32>, tensor<16xf32>)
  // CHECK: math.sqrt
  %y = tfm.rms_norm %x, %w {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A norm per head: the [4, 16] rows viewed as 16 rows of one 4-wide head
// each, normalised as rows, and viewed back.
// CHECK-LABEL: func.func @rms_norm_groups
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<4xf32>)
func.func @rms_norm_groups(%x: tensor<4x16xf32>, %w: tensor<4xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[HEADS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 4, 4] : tensor<4x16xf32> into tensor<4x4x4xf32>
  // CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[HEADS]] {{\[}}[0, 1], [2]] : tensor<4x4x4xf32> into tensor<16x4xf32>
  // CHECK: %[[SUMS:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<16x4xf32>) outs(%{{.*}} : tensor<16xf32>)
  // CHECK: %[[NORMED:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %[[SUMS]], %[[W]] : tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>)
  // CHECK: %[[BACK:.*]] = tensor.expand_shape %[[NORMED]] {{\[}}[0, 1], [2]] output_shape [4, 4, 4] : tensor<16x4xf32> into tensor<4x4x4xf32>
  // CHECK: tensor.collapse_shape %[[BACK]] {{\[}}[0], [1, 2]] : tensor<4x4x4xf32> into tensor<4x16xf32>
  %y = tfm.rms_norm %x, %w {eps = 1.0e-6 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<4xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Mean and variance reductions, then normalise, scale and shift.
// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<4x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  // CHECK-COUNT-2: iterator_types = ["parallel", "reduction"]
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
  %y = tfm.layer_norm %x, %w, %b {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Without a bias, nothing is added after the scale.
// CHECK-LABEL: func.func @layer_norm_no_bias
func.func @layer_norm_no_bias(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  // CHECK-COUNT-2: iterator_types = ["parallel", "reduction"]
  // CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<16xf32>)
  // CHECK: arith.subf
  // CHECK-NEXT: arith.mulf
  // CHECK-NEXT: %[[SCALED:.*]] = arith.mulf
  // CHECK-NEXT: linalg.yield %[[SCALED]]
  %y = tfm.layer_norm %x, %w {eps = 1.0e-5 : f32} : tensor<4x16xf32>, tensor<16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A LayerNorm per head with weights shared by the heads: each head a row,
// scaled there, as rms_norm's groups.
// CHECK-LABEL: func.func @layer_norm_per_head_shared
// CHECK-SAME: %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>
func.func @layer_norm_per_head_shared(%x: tensor<4x16xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x4x4xf32> into tensor<16x4xf32>
  // CHECK: %[[NORMED:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %{{.*}}, %{{.*}}, %[[W]], %[[B]] : tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: %[[BACK:.*]] = tensor.expand_shape %[[NORMED]]
  // CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[BACK]] {{\[}}[0], [1, 2]] : tensor<4x4x4xf32> into tensor<4x16xf32>
  // CHECK: return %[[OUT]]
  %y = tfm.layer_norm %x, %w, %b {eps = 1.0e-5 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A LayerNorm per head whose heads have weights of their own (StableLM 2
// 12B): each head a row, normalised unscaled; the features, viewed back,
// are scaled by their own weights.
// CHECK-LABEL: func.func @layer_norm_per_head_weights
// CHECK-SAME: %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16xf32>
func.func @layer_norm_per_head_weights(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x4x4xf32> into tensor<16x4xf32>
  // CHECK: %[[NORMED:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %{{.*}}, %{{.*}} : tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>)
  // CHECK: %[[BACK:.*]] = tensor.expand_shape %[[NORMED]]
  // CHECK: %[[FEATURES:.*]] = tensor.collapse_shape %[[BACK]] {{\[}}[0], [1, 2]] : tensor<4x4x4xf32> into tensor<4x16xf32>
  // CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[FEATURES]], %[[W]] : tensor<4x16xf32>, tensor<16xf32>)
  // CHECK: arith.mulf
  // CHECK-NEXT: linalg.yield
  // CHECK: return %[[OUT]]
  %y = tfm.layer_norm %x, %w {eps = 1.0e-5 : f32, group_size = 4 : i64} : tensor<4x16xf32>, tensor<16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// out[s, o] = sum_i x[s, i] * w[o, i] + b[o]: the bias broadcast is the init;
// loops are (o, s, i) so each weight row is reused by every token.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @linear_bias
func.func @linear_bias(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
  // CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
  // CHECK-SAME: outs(%[[INIT]] : tensor<4x8xf32>)
  %y = tfm.linear %x, %w, %b : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @lm_head
func.func @lm_head(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x32xf32> {
  // CHECK: linalg.fill
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
  %y = tfm.lm_head %x, %w : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A biased head starts its products from the broadcast bias.
// CHECK-LABEL: func.func @lm_head_bias
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<32xf32>
func.func @lm_head_bias(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  // CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<32xf32>)
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%[[INIT]] : tensor<4x32xf32>)
  %y = tfm.lm_head %x, %w, %b : tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Token ids are clamped into the table before the gather.
// CHECK-LABEL: func.func @embedding
func.func @embedding(%t: tensor<4xi32>, %table: tensor<32x16xf32>) -> tensor<4x16xf32> {
  // CHECK: linalg.generic
  // CHECK: arith.maxsi
  // CHECK: arith.minsi
  // CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<32x16xf32>
  %x = tfm.embedding %t, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
  return %x : tensor<4x16xf32>
}

// -----

// A 16-bit table's elements are widened to f32 as they are gathered.
// CHECK-LABEL: func.func @embedding_bf16
func.func @embedding_bf16(%t: tensor<4xi32>, %table: tensor<32x16xbf16>) -> tensor<4x16xf32> {
  // CHECK: %[[E:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<32x16xbf16>
  // CHECK: %[[W:.*]] = arith.extf %[[E]] : bf16 to f32
  // CHECK: linalg.yield %[[W]] : f32
  %x = tfm.embedding %t, %table : tensor<4xi32>, tensor<32x16xbf16> -> tensor<4x16xf32>
  return %x : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @position_embedding
// CHECK-SAME: %[[POS:[^:]*]]: index
func.func @position_embedding(%x: tensor<4x16xf32>, %table: tensor<64x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: %[[ROWS:.*]] = tensor.extract_slice %{{.*}}[%[[POS]], 0] [4, 16] [1, 1]
  // CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[ROWS]]
  %y = tfm.position_embedding %x, %table[%pos] : tensor<4x16xf32>, tensor<64x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Sinusoidal encodings are computed, not read from a table: the
// frequencies base^(-2i/d) are a constant with one entry per feature (each
// pair's twice), and one generic adds sin(p * f) to the even features and
// cos(p * f) to the odd ones at the row's position p = offset + row.
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[FEATURE:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @sinusoidal_position
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[POS:.*]]: index)
func.func @sinusoidal_position(%x: tensor<4x4xf32>, %pos: index) -> tensor<4x4xf32> {
  // CHECK: %[[FREQ:.*]] = arith.constant dense<[1.000000e+00, 1.000000e+00, 0.00999999977, 0.00999999977]> : tensor<4xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[ROWS]], #[[FEATURE]], #[[ROWS]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[FREQ]] : tensor<4x4xf32>, tensor<4xf32>)
  // CHECK-NEXT: ^bb0(%[[IN:[^:]+]]: f32, %[[F:[^:]+]]: f32,
  // CHECK-DAG: %[[ROW:.*]] = linalg.index 0 : index
  // CHECK-DAG: %[[COL:.*]] = linalg.index 1 : index
  // CHECK: %[[P:.*]] = arith.addi %[[ROW]], %[[POS]] : index
  // CHECK: %[[PF:.*]] = arith.uitofp %{{.*}} : i64 to f32
  // CHECK: %[[ANGLE:.*]] = arith.mulf %[[PF]], %[[F]] : f32
  // CHECK: %[[PARITY:.*]] = arith.andi %[[COL]], %{{.*}} : index
  // CHECK: %[[EVEN:.*]] = arith.cmpi eq, %[[PARITY]], %{{.*}} : index
  // CHECK-DAG: %[[COS:.*]] = math.cos %[[ANGLE]] : f32
  // CHECK-DAG: %[[SIN:.*]] = math.sin %[[ANGLE]] : f32
  // CHECK: %[[ENC:.*]] = arith.select %[[EVEN]], %[[SIN]], %[[COS]] : f32
  // CHECK: %[[SUM:.*]] = arith.addf %[[IN]], %[[ENC]] : f32
  // CHECK: linalg.yield %[[SUM]] : f32
  %y = tfm.sinusoidal_position %x[%pos] {base = 1.0e4 : f32} : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Interleaved pairs are (2i, 2i+1): the heads are viewed as
// [rows, heads, head_dim/2, 2]; half-split pairs are (i, i + head_dim/2):
// [rows, heads, 2, head_dim/2]. Slicing the pair dimension gives both
// elements of every pair, one generic rotates them into slices of the
// result, and every map is a projection. The frequencies theta^(-2i/head_dim)
// are constants; cos and sin are computed once per row and pair ([4, 4]
// tables) and read by every head.
// CHECK-DAG: #[[ROW_PAIR:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @rope
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[POS:.*]]: index)
func.func @rope(%x: tensor<4x16xf32>, %pos: index) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  // CHECK: %[[PAIRS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2, 3]] output_shape [4, 2, 4, 2]
  // CHECK: %[[OUT:.*]] = tensor.empty() : tensor<4x2x4x2xf32>
  // CHECK: %[[FREQ:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
  // CHECK: %[[TABLES:.*]]:2 = linalg.generic {{.*}} ins(%[[FREQ]] : tensor<4xf32>) outs({{.*}} : tensor<4x4xf32>, tensor<4x4xf32>)
  // CHECK: math.cos
  // CHECK: math.sin
  // CHECK-DAG: %[[OUT0:.*]] = tensor.extract_slice %[[OUT]][0, 0, 0, 0] [4, 2, 4, 1]
  // CHECK-DAG: %[[OUT1:.*]] = tensor.extract_slice %[[OUT]][0, 0, 0, 1] [4, 2, 4, 1]
  // CHECK-DAG: %[[X0:.*]] = tensor.extract_slice %[[PAIRS]][0, 0, 0, 0] [4, 2, 4, 1]
  // CHECK-DAG: %[[X1:.*]] = tensor.extract_slice %[[PAIRS]][0, 0, 0, 1] [4, 2, 4, 1]
  // CHECK: %[[ROTATED:.*]]:2 = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[ROW_PAIR]], #[[ROW_PAIR]], #{{.*}}, #{{.*}}]{{.*}} ins(%[[X0]], %[[X1]], %[[TABLES]]#0, %[[TABLES]]#1 : {{.*}}) outs(%[[OUT0]], %[[OUT1]] :
  // CHECK-NEXT: ^bb0(%[[A:[^:]+]]: f32, %[[B:[^:]+]]: f32, %[[COS:[^:]+]]: f32, %[[SIN:[^:]+]]: f32,
  // CHECK-DAG: %[[BSIN:.*]] = arith.mulf %[[B]], %[[SIN]]
  // CHECK-DAG: %[[ACOS:.*]] = arith.mulf %[[A]], %[[COS]]
  // CHECK-DAG: %[[FIRST:.*]] = arith.subf %[[ACOS]], %[[BSIN]]
  // CHECK-DAG: %[[ASIN:.*]] = arith.mulf %[[A]], %[[SIN]]
  // CHECK-DAG: %[[BCOS:.*]] = arith.mulf %[[B]], %[[COS]]
  // CHECK-DAG: %[[SECOND:.*]] = arith.addf %[[BCOS]], %[[ASIN]]
  // CHECK: linalg.yield %[[FIRST]], %[[SECOND]]
  // CHECK: %[[WITH0:.*]] = tensor.insert_slice %[[ROTATED]]#0 into %[[OUT]][0, 0, 0, 0] [4, 2, 4, 1]
  // CHECK: %[[WITH1:.*]] = tensor.insert_slice %[[ROTATED]]#1 into %[[WITH0]][0, 0, 0, 1] [4, 2, 4, 1]
  // CHECK: tensor.collapse_shape %[[WITH1]] {{\[}}[0], [1, 2, 3]] : tensor<4x2x4x2xf32> into tensor<4x16xf32>
  // CHECK-NOT: math.powf
  %a = tfm.rope %x[%pos] {head_dim = 8 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<interleaved>} : tensor<4x16xf32>
  // CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1, 2, 3]] output_shape [4, 2, 2, 4]
  // CHECK-DAG: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [4, 2, 1, 4]
  // CHECK-DAG: tensor.extract_slice %{{.*}}[0, 0, 1, 0] [4, 2, 1, 4]
  // CHECK: linalg.generic
  // CHECK: tensor.insert_slice %{{.*}}[0, 0, 1, 0] [4, 2, 1, 4]
  %b = tfm.rope %x[%pos] {head_dim = 8 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>} : tensor<4x16xf32>
  return %a, %b : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A scaled RoPE rotates by its own frequencies, its cos and sin scaled by
// the attention factor.
// CHECK-LABEL: func.func @rope_scaled
func.func @rope_scaled(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: %[[FREQ:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-02]> : tensor<2xf32>
  // CHECK: linalg.generic {{.*}} ins(%[[FREQ]] : tensor<2xf32>)
  // CHECK: %[[COS:.*]] = math.cos
  // CHECK: %[[SIN:.*]] = math.sin
  // CHECK: %[[FACTOR:.*]] = arith.constant 1.250000e+00 : f32
  // CHECK: %[[SCALEDCOS:.*]] = arith.mulf %[[COS]], %[[FACTOR]]
  // CHECK: %[[SCALEDSIN:.*]] = arith.mulf %[[SIN]], %[[FACTOR]]
  // CHECK: linalg.yield %[[SCALEDCOS]], %[[SCALEDSIN]]
  %a = tfm.rope %x[%pos] {head_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>, frequencies = array<f32: 0.5, 0.025>, attention_factor = 1.25 : f32} : tensor<4x16xf32>
  return %a : tensor<4x16xf32>
}

// -----

// A partial RoPE rotates the [rows, heads, rotary_dim] corner of each
// head's features, at theta^(-2i / rotary_dim), and keeps the rest.
// CHECK-LABEL: func.func @rope_partial
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>,
func.func @rope_partial(%x: tensor<4x16xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: %[[HEADS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 2, 8] : tensor<4x16xf32> into tensor<4x2x8xf32>
  // CHECK: %[[CORNER:.*]] = tensor.extract_slice %[[HEADS]][0, 0, 0] [4, 2, 4] [1, 1, 1] : tensor<4x2x8xf32> to tensor<4x2x4xf32>
  // CHECK: tensor.expand_shape %[[CORNER]] {{\[}}[0], [1], [2, 3]] output_shape [4, 2, 2, 2] : tensor<4x2x4xf32> into tensor<4x2x2x2xf32>
  // CHECK: arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
  // CHECK: %[[ROTATED:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<4x2x2x2xf32> into tensor<4x2x4xf32>
  // CHECK: %[[MERGED:.*]] = tensor.insert_slice %[[ROTATED]] into %[[HEADS]][0, 0, 0] [4, 2, 4] [1, 1, 1] : tensor<4x2x4xf32> into tensor<4x2x8xf32>
  // CHECK: tensor.collapse_shape %[[MERGED]] {{\[}}[0], [1, 2]] : tensor<4x2x8xf32> into tensor<4x16xf32>
  %a = tfm.rope %x[%pos] {head_dim = 8 : i64, rotary_dim = 4 : i64, theta = 1.0e4 : f32, layout = #tfm.rope_layout<half_split>} : tensor<4x16xf32>
  return %a : tensor<4x16xf32>
}

// -----

// Attention becomes one destination-style kernel op over the same
// operands, mask and window, into an empty init: each target schedules it.
// CHECK-LABEL: func.func @attention_to_kernel
// CHECK-SAME: (%[[Q:.*]]: tensor<4x16xf32>, %[[K:.*]]: tensor<8x8xf32>, %[[V:.*]]: tensor<8x8xf32>, %[[POS:.*]]: index)
func.func @attention_to_kernel(%q: tensor<4x16xf32>, %k: tensor<8x8xf32>, %v: tensor<8x8xf32>, %pos: index) -> tensor<4x16xf32> {
  // CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x16xf32>
  // CHECK: %[[OUT:.*]] = tfm.attention_kernel ins(%[[Q]], %[[K]], %[[V]] : tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>) offset(%[[POS]]) outs(%[[INIT]] : tensor<4x16xf32>) {mask = #tfm.mask<sliding_window>, num_heads = 4 : i64, num_kv_heads = 2 : i64, window = 3 : i64} -> tensor<4x16xf32>
  // CHECK: return %[[OUT]]
  %o = tfm.attention %q, %k, %v[%pos] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<sliding_window>, window = 3 : i64, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %o : tensor<4x16xf32>
}

// -----

// A 16-bit weight is widened to f32 where the product reads it.
// CHECK-LABEL: func.func @f16_weight
func.func @f16_weight(%x: tensor<4x16xf32>, %w: tensor<8x16xf16>) -> tensor<4x8xf32> {
  // CHECK: linalg.generic
  // CHECK: ^bb0(%[[IN:.*]]: f32, %[[W:.*]]: f16, %[[ACC:.*]]: f32):
  // CHECK:   %[[WIDE:.*]] = arith.extf %[[W]] : f16 to f32
  // CHECK:   arith.mulf %[[IN]], %[[WIDE]] : f32
  %y = tfm.linear %x, %w : tensor<4x16xf32>, tensor<8x16xf16> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// MoE routing: one product for the router logits of all tokens, then a
// loop over tokens that writes each token's choices: its weight and its
// expert's index in each of the top_k slots.
// CHECK-LABEL: func.func @moe_route
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>, %[[ROUTER:.*]]: tensor<4x8xf32>)
// CHECK: %[[LOGITS:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[ROUTER]] : tensor<3x8xf32>, tensor<4x8xf32>)
// CHECK: %[[OUT:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<3x2xf32>, tensor<3x2xi32>)
// CHECK:   tensor.extract %[[LOGITS]][%[[T]], %{{.*}}] : tensor<3x4xf32>
// CHECK:   %[[ID:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:   tensor.insert %{{.*}} into %{{.*}}[%[[T]], %[[SLOT:.*]]] : tensor<3x2xf32>
// CHECK:   tensor.insert %[[ID]] into %{{.*}}[%[[T]], %[[SLOT]]] : tensor<3x2xi32>
// CHECK: return %[[OUT]]#0, %[[OUT]]#1
func.func @moe_route(%x: tensor<3x8xf32>, %router: tensor<4x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<3x8xf32>, tensor<4x8xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
  return %weights, %experts : tensor<3x2xf32>, tensor<3x2xi32>
}

// -----

// MoE experts: a loop over tokens and their choices that reads only the
// chosen experts' rows of the stacked weights (a [hidden, dim] slice at
// expert * hidden), the index clamped to [0, experts).
// CHECK-LABEL: func.func @moe_experts
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>, %[[WEIGHTS:.*]]: tensor<3x2xf32>, %[[EXPERTS:.*]]: tensor<3x2xi32>, %[[GATE:.*]]: tensor<24x8xf32>, %[[UP:.*]]: tensor<24x8xf32>, %[[DOWN:.*]]: tensor<32x6xf32>)
// CHECK: %[[OUT:.*]] = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<3x8xf32>)
// CHECK:   scf.for %[[SLOT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:     tensor.extract %[[WEIGHTS]][%[[T]], %[[SLOT]]] : tensor<3x2xf32>
// CHECK:     %[[ID:.*]] = tensor.extract %[[EXPERTS]][%[[T]], %[[SLOT]]] : tensor<3x2xi32>
// CHECK:     %[[INDEX:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK:     %[[LOW:.*]] = arith.maxsi %[[INDEX]], %c0
// CHECK:     %[[EXPERT:.*]] = arith.minsi %[[LOW]], %c3
// CHECK:     %[[FIRST:.*]] = arith.muli %[[EXPERT]], %c6 : index
// CHECK:     tensor.extract_slice %[[GATE]][%[[FIRST]], 0] [6, 8] [1, 1] : tensor<24x8xf32> to tensor<6x8xf32>
// CHECK:     tensor.extract_slice %[[UP]][%[[FIRST]], 0] [6, 8] [1, 1] : tensor<24x8xf32> to tensor<6x8xf32>
// CHECK:     tensor.extract_slice %[[DOWN]][%{{.*}}, 0] [8, 6] [1, 1] : tensor<32x6xf32> to tensor<8x6xf32>
// CHECK:   tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0] [1, 8] [1, 1]
// CHECK: return %[[OUT]]
func.func @moe_experts(%x: tensor<3x8xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x2xi32>, %gate: tensor<24x8xf32>, %up: tensor<24x8xf32>, %down: tensor<32x6xf32>) -> tensor<3x8xf32> {
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<32x6xf32>
  return %y : tensor<3x8xf32>
}

// -----

// 16-bit experts (a GPU's): the slices keep the matrices' type, and the
// products widen each weight as they read it.
// CHECK-LABEL: func.func @moe_experts_bf16
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [6, 8] [1, 1] : tensor<24x8xbf16> to tensor<6x8xbf16>
// CHECK: ^bb0(%[[W:.*]]: bf16, %[[A:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[WIDE:.*]] = arith.extf %[[W]] : bf16 to f32
// CHECK: arith.mulf %[[WIDE]], %[[A]]
func.func @moe_experts_bf16(%x: tensor<3x8xf32>, %weights: tensor<3x2xf32>, %experts: tensor<3x2xi32>, %gate: tensor<24x8xbf16>, %up: tensor<24x8xbf16>, %down: tensor<32x6xbf16>) -> tensor<3x8xf32> {
  %y = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down : tensor<3x8xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<24x8xbf16>, tensor<24x8xbf16>, tensor<32x6xbf16>
  return %y : tensor<3x8xf32>
}
