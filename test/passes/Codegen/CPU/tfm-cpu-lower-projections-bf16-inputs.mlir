// RUN: tfmc-opt %s -tfm-cpu-lower-projections -split-input-file | FileCheck %s
// The bf16 projection configured for f32 inputs instead:
// RUN: sed -e 's/inputs = bf16, //' %s | tfmc-opt -tfm-cpu-lower-projections -split-input-file | FileCheck %s --check-prefix=DEFAULT

// A projection over bf16 panels with bf16 inputs (its configuration's).
// Each row's inputs are
// rounded to bf16 by integer arithmetic on their bits (round to nearest
// even: + 0x7FFF (32767) + the kept part's lowest bit) and paired into an
// i32, column 2i in the low half and 2i + 1 in the high half. The panels'
// even and odd columns are two operands; per step the odd weight times the
// high half (x & 0xFFFF0000, -65536) plus the even weight times the low
// half (x << 16), loops (panel, row, pair, lane).
// CHECK-DAG: #[[LOWCOL:.*]] = affine_map<(d0, d1) -> (d0, d1, 0)>
// CHECK-DAG: #[[HIGHCOL:.*]] = affine_map<(d0, d1) -> (d0, d1, 1)>
// CHECK-DAG: #[[ROWPAIR:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[INPUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[PANEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-LABEL: func.func @bf16
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<2x64x16xbf16>)
// CHECK: %[[COLUMNS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 32, 2]
// CHECK: %[[PAIRS:.*]] = linalg.generic {indexing_maps = [#[[LOWCOL]], #[[HIGHCOL]], #[[ROWPAIR]]], iterator_types = ["parallel", "parallel"]} ins(%[[COLUMNS]], %[[COLUMNS]] : tensor<4x32x2xf32>, tensor<4x32x2xf32>) outs(%{{.*}} : tensor<4x32xi32>)
// CHECK:   arith.bitcast %{{.*}} : f32 to i32
// CHECK:   arith.constant 32767 : i32
// CHECK:   %[[LOW:.*]] = arith.shrui
// CHECK:   %[[HIGH:.*]] = arith.andi %{{.*}}, %c-65536{{.*}} : i32
// CHECK:   %[[PAIR:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i32
// CHECK:   linalg.yield %[[PAIR]]
// CHECK: %[[PAIRED:.*]] = tensor.expand_shape %[[W]] {{\[}}[0], [1, 2], [3]] output_shape [2, 32, 2, 16]
// CHECK: %[[EVEN:.*]] = tensor.extract_slice %[[PAIRED]][0, 0, 0, 0] [2, 32, 1, 16] [1, 1, 1, 1] : tensor<2x32x2x16xbf16> to tensor<2x32x16xbf16>
// CHECK: %[[ODD:.*]] = tensor.extract_slice %[[PAIRED]][0, 0, 1, 0] [2, 32, 1, 16] [1, 1, 1, 1] : tensor<2x32x2x16xbf16> to tensor<2x32x16xbf16>
// CHECK: %[[RESULT:.*]] = linalg.generic {indexing_maps = [#[[INPUT]], #[[PANEL]], #[[PANEL]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[PAIRS]], %[[EVEN]], %[[ODD]] : tensor<4x32xi32>, tensor<2x32x16xbf16>, tensor<2x32x16xbf16>) outs(%{{.*}} : tensor<4x2x16xf32>)
// CHECK: ^bb0(%[[XP:.*]]: i32, %[[W0:.*]]: bf16, %[[W1:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK:   %[[LOBITS:.*]] = arith.shli %[[XP]], %{{.*}} : i32
// CHECK:   %[[LO:.*]] = arith.bitcast %[[LOBITS]] : i32 to f32
// CHECK:   %[[HIBITS:.*]] = arith.andi %[[XP]], %{{.*}} : i32
// CHECK:   %[[HI:.*]] = arith.bitcast %[[HIBITS]] : i32 to f32
// CHECK:   %[[E0:.*]] = arith.extf %[[W0]] : bf16 to f32
// CHECK:   %[[E1:.*]] = arith.extf %[[W1]] : bf16 to f32
// CHECK:   %[[P1:.*]] = arith.mulf %[[E1]], %[[HI]] : f32
// CHECK:   %[[P0:.*]] = arith.mulf %[[E0]], %[[LO]] : f32
// CHECK:   %[[STEP:.*]] = arith.addf %[[P1]], %[[P0]] : f32
// CHECK:   %[[SUM:.*]] = arith.addf %[[ACC]], %[[STEP]] : f32
// CHECK:   linalg.yield %[[SUM]]
// CHECK: tensor.collapse_shape %[[RESULT]] {{\[}}[0], [1, 2]] : tensor<4x2x16xf32> into tensor<4x32xf32>
// Without the option: the panels widened as they are read.
// DEFAULT-LABEL: func.func @bf16
// DEFAULT-NOT: xi32>
// DEFAULT: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<2x64x16xbf16>)
// DEFAULT:   arith.extf %{{.*}} : bf16 to f32
func.func @bf16(%x: tensor<4x64xf32>, %w: tensor<2x64x16xbf16>) -> tensor<4x30xf32> {
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8>, out_features = 30 : i64} : tensor<4x64xf32>, tensor<2x64x16xbf16> -> tensor<4x30xf32>
  return %y : tensor<4x30xf32>
}

// -----

// f16 panels, and bf16 ones of an odd number of input features (which
// tfm-cpu-select-kernel-config leaves f32 inputs: pairs need an even one),
// take f32 inputs.
// CHECK-LABEL: func.func @unpaired
// CHECK-NOT: xi32>
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<2x64x16xf16>)
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<4x63xf32>, tensor<2x63x16xbf16>)
func.func @unpaired(%x: tensor<4x64xf32>, %w: tensor<2x64x16xf16>, %x2: tensor<4x63xf32>, %w2: tensor<2x63x16xbf16>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %y = tfm_cpu.packed_linear %x, %w {config = #tfm_cpu.projection<panels = f16, accumulators = 8>, out_features = 32 : i64} : tensor<4x64xf32>, tensor<2x64x16xf16> -> tensor<4x32xf32>
  %z = tfm_cpu.packed_linear %x2, %w2 {config = #tfm_cpu.projection<panels = bf16, accumulators = 8>, out_features = 32 : i64} : tensor<4x63xf32>, tensor<2x63x16xbf16> -> tensor<4x32xf32>
  return %y, %z : tensor<4x32xf32>, tensor<4x32xf32>
}
