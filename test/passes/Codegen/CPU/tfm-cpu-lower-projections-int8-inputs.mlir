// RUN: tfmc-opt %s -tfm-cpu-lower-projections -split-input-file | FileCheck %s
// The Q4_0 projection configured for f32 inputs instead:
// RUN: sed -e 's/panels = q4_0, inputs = int8, accumulators = 8, dot = vpmaddubsw/panels = q4_0, accumulators = 8/' %s | tfmc-opt -tfm-cpu-lower-projections -split-input-file | FileCheck %s --check-prefix=DEFAULT

// A Q4_0 projection over int8 inputs (its configuration's). Each row's blocks of 32 inputs are
// quantized as llama.cpp's Q8_0 activations: d = max|x| / 127 and 1 / d
// once per block, q = roundeven(x * (1 / d)) as i8, and -4 * sum(q) per block, which each of
// the block's two halves adds for Q4_0's offset of 8. Each step i of half
// h pairs the inputs of one byte's two nibbles into an i16 (column 8h + i
// low, 16 + 8h + i high); the integer sums per half block are i16, loops
// (panel, row, block, half, step, lane); then each, plus the offset, times
// the weights' and the inputs' scales, loops (panel, row, block, half,
// lane).
// CHECK-DAG: #[[ELEMENT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BLOCK:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[LOWCOL:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d2, d3)>
// CHECK-DAG: #[[HIGHCOL:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 1, d2, d3)>
// CHECK-DAG: #[[PAIR:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d3, d4)>
// CHECK-DAG: #[[QUANT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d4, d5)>
// CHECK-DAG: #[[PARTIAL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d2, d3, d5)>
// CHECK-DAG: #[[SUMS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d2, d3, d4)>
// CHECK-DAG: #[[SCALE:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>
// CHECK-DAG: #[[ROWBLOCK:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d4)>
// CHECK-LABEL: func.func @q4_0
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[Q:.*]]: tensor<2x2x16x16xi8>, %[[DW:.*]]: tensor<2x2x16xf16>)
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 2, 32]
// CHECK: %[[AMAX:.*]] = linalg.generic {indexing_maps = [#[[ELEMENT]], #[[BLOCK]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<4x2x32xf32>)
// CHECK:   math.absf
// CHECK:   arith.maximumf
// CHECK: %[[PERBLOCK:.*]]:2 = linalg.generic {{.*}} ins(%[[AMAX]] : tensor<4x2xf32>)
// CHECK:   arith.constant 1.270000e+02 : f32
// CHECK:   %[[D:.*]] = arith.divf
// CHECK:   %[[INV:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK:   %[[EMPTY:.*]] = arith.cmpf oeq, %[[D]]
// CHECK:   %[[SAFE:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[INV]]
// CHECK:   linalg.yield %[[D]], %[[SAFE]]
// CHECK: %[[QX:.*]] = linalg.generic {indexing_maps = [#[[ELEMENT]], #[[BLOCK]], #[[ELEMENT]]], {{.*}} ins(%[[BLOCKS]], %[[PERBLOCK]]#1 : tensor<4x2x32xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2x32xi8>)
// CHECK:   %[[SCALED:.*]] = arith.mulf
// CHECK:   %[[ROUNDED:.*]] = math.roundeven %[[SCALED]]
// CHECK:   arith.fptosi %[[ROUNDED]] : f32 to i8
// CHECK: %[[OFFSETS:.*]] = linalg.generic {indexing_maps = [#[[ELEMENT]], #[[BLOCK]]], {{.*}} ins(%[[QX]] : tensor<4x2x32xi8>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK:   arith.constant -4.000000e+00 : f32
// CHECK: %[[COLUMNS:.*]] = tensor.expand_shape %[[QX]] {{\[}}[0], [1], [2, 3, 4]] output_shape [4, 2, 2, 2, 8]
// CHECK: %[[PAIRS:.*]] = linalg.generic {indexing_maps = [#[[LOWCOL]], #[[HIGHCOL]], {{.*}}]{{.*}} ins(%[[COLUMNS]], %[[COLUMNS]] : {{.*}}) outs(%{{.*}} : tensor<4x2x2x8xi16>)
// CHECK:   arith.extui
// CHECK:   arith.shli
// CHECK:   arith.ori
// CHECK: %[[HALVES:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3], [4]] output_shape [2, 2, 2, 8, 16]
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : i16) outs(%{{.*}} : tensor<4x2x2x2x16xi16>)
// CHECK: %[[SUM16:.*]] = linalg.generic {indexing_maps = [#[[PAIR]], #[[QUANT]], #[[PARTIAL]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[PAIRS]], %[[HALVES]] : tensor<4x2x2x8xi16>, tensor<2x2x2x8x16xi8>) outs(%[[ZERO]] : tensor<4x2x2x2x16xi16>)
// CHECK:   %[[WIDE:.*]] = arith.extui %{{.*}} : i8 to i16
// CHECK:   %[[LOW:.*]] = arith.andi %[[WIDE]], %{{.*}} : i16
// CHECK:   %[[HIGH:.*]] = arith.shrui %[[WIDE]], %{{.*}} : i16
// CHECK:   arith.muli
// CHECK:   arith.muli
// CHECK:   arith.addi
// CHECK:   arith.addi
// CHECK: %[[RESULT:.*]] = linalg.generic {indexing_maps = [#[[SUMS]], #[[SCALE]], #[[ROWBLOCK]], #[[ROWBLOCK]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[SUM16]], %[[DW]], %[[OFFSETS]], %[[PERBLOCK]]#0 : tensor<4x2x2x2x16xi16>, tensor<2x2x16xf16>, tensor<4x2xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2x16xf32>)
// CHECK:   arith.sitofp %{{.*}} : i16 to f32
// CHECK: tensor.collapse_shape %[[RESULT]] {{\[}}[0], [1, 2]] : tensor<4x2x16xf32> into tensor<4x32xf32>
// DEFAULT-LABEL: func.func @q4_0
// DEFAULT-NOT: math.roundeven
// DEFAULT-NOT: xi16>
// DEFAULT: return
func.func @q4_0(%x: tensor<4x64xf32>, %q: tensor<2x2x16x16xi8>, %d: tensor<2x2x16xf16>) -> tensor<4x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 8, dot = vpmaddubsw>, out_features = 32 : i64} : tensor<4x64xf32>, tensor<2x2x16x16xi8>, tensor<2x2x16xf16> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Q8_0 blocks take f32 inputs (Q8_0 takes int8 inputs in the q8_0x4
// panels that tfm-cpu-select-kernel-config chooses for them).
// CHECK-LABEL: func.func @q8_0
// CHECK-NOT: math.roundeven
// CHECK-NOT: xi16>
// CHECK: return
func.func @q8_0(%x: tensor<1x64xf32>, %q: tensor<2x2x32x16xi8>, %d: tensor<2x2x16xf16>) -> tensor<1x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>, out_features = 32 : i64} : tensor<1x64xf32>, tensor<2x2x32x16xi8>, tensor<2x2x16xf16> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// q8_0x4 panels (Q8_0, four columns of a row in each i32) always take int8
// inputs (the configuration's verifier says so). The inputs are quantized as for
// Q4_0 but offset by -128 * sum(q) per block; each step's four int8 inputs
// become one i32 (byte t: column 4i + t). The integer sums per block are
// i32 over 8 steps, loops (panel, row, block, step, lane): per byte, the
// quant with its top bit flipped (q + 128, unsigned) times the input
// (signed). Then each, plus the offset, times the weights' and the inputs'
// scales, loops (panel, row, block, lane).
// CHECK-DAG: #[[BYTE0:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2, 0)>
// CHECK-DAG: #[[BYTE3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2, 3)>
// CHECK-DAG: #[[QUAD:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
// CHECK-DAG: #[[QUANTS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-DAG: #[[PARTIAL:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d2, d4)>
// CHECK-DAG: #[[SUMS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG: #[[SCALE:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[ROWBLOCK:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-LABEL: func.func @q8_0x4
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[Q:.*]]: tensor<2x2x8x16xi32>, %[[DW:.*]]: tensor<2x2x16xf16>)
// CHECK: %[[PERBLOCK:.*]]:2 = linalg.generic
// CHECK: %[[QX:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x2x32xi8>)
// CHECK:   math.roundeven
// CHECK: %[[OFFSETS:.*]] = linalg.generic {{.*}} ins(%[[QX]] : tensor<4x2x32xi8>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK:   arith.constant -1.280000e+02 : f32
// CHECK: %[[COLUMNS:.*]] = tensor.expand_shape %[[QX]] {{\[}}[0], [1], [2, 3]] output_shape [4, 2, 8, 4]
// CHECK: %[[QUADS:.*]] = linalg.generic {indexing_maps = [#[[BYTE0]], #{{.*}}, #{{.*}}, #[[BYTE3]], #{{.*}}], {{.*}} ins(%[[COLUMNS]], %[[COLUMNS]], %[[COLUMNS]], %[[COLUMNS]] : {{.*}}) outs(%{{.*}} : tensor<4x2x8xi32>)
// CHECK-COUNT-3: arith.shli
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<4x2x2x16xi32>)
// CHECK: %[[SUM32:.*]] = linalg.generic {indexing_maps = [#[[QUAD]], #[[QUANTS]], #[[PARTIAL]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[QUADS]], %[[Q]] : tensor<4x2x8xi32>, tensor<2x2x8x16xi32>) outs(%[[ZERO]] : tensor<4x2x2x16xi32>)
// CHECK:   %[[FLIP:.*]] = arith.constant -128 : i8
// CHECK:   %[[W0:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK:   %[[U0:.*]] = arith.xori %[[W0]], %[[FLIP]] : i8
// CHECK:   arith.extui %[[U0]] : i8 to i32
// CHECK:   arith.extsi %{{.*}} : i8 to i32
// CHECK-COUNT-4: arith.muli
// CHECK: %[[RESULT:.*]] = linalg.generic {indexing_maps = [#[[SUMS]], #[[SCALE]], #[[ROWBLOCK]], #[[ROWBLOCK]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[SUM32]], %[[DW]], %[[OFFSETS]], %[[PERBLOCK]]#0 : tensor<4x2x2x16xi32>, tensor<2x2x16xf16>, tensor<4x2xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2x16xf32>)
// CHECK:   arith.sitofp %{{.*}} : i32 to f32
// CHECK: tensor.collapse_shape %[[RESULT]] {{\[}}[0], [1, 2]] : tensor<4x2x16xf32> into tensor<4x32xf32>
// DEFAULT-LABEL: func.func @q8_0x4
// DEFAULT: math.roundeven
// DEFAULT: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x2x8xi32>, tensor<2x2x8x16xi32>) outs(%{{.*}} : tensor<4x2x2x16xi32>)
func.func @q8_0x4(%x: tensor<4x64xf32>, %q: tensor<2x2x8x16xi32>, %d: tensor<2x2x16xf16>) -> tensor<4x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>, out_features = 32 : i64} : tensor<4x64xf32>, tensor<2x2x8x16xi32>, tensor<2x2x16xf16> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// q4_0x4 panels (Q4_0, four bytes of a row in each i32) always take int8
// inputs, with or without the option: the input quads as for q8_0x4, but
// offset by -8 * sum(q) per block (Q4_0's `- 8` on each nibble). Per step
// of a block's 4, two quad sums: the quants' low nibbles (byte & 15) times
// the quad of columns 4i.. (the first half of the quads), their high
// nibbles (byte >> 4) times that of columns 16 + 4i.. (the second half),
// added to the i32 partial sum at once (a reduction's one combiner).
// CHECK-DAG: #[[QUAD:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
// CHECK-DAG: #[[QUANTS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-DAG: #[[PARTIAL:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d2, d4)>
// CHECK-LABEL: func.func @q4_0x4
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[Q:.*]]: tensor<2x2x4x16xi32>, %[[DW:.*]]: tensor<2x2x16xf16>)
// CHECK: %[[OFFSETS:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x2x32xi8>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK:   arith.constant -8.000000e+00 : f32
// CHECK: %[[QUADS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x2x8xi32>)
// CHECK: %[[LOW:.*]] = tensor.extract_slice %[[QUADS]][0, 0, 0] [4, 2, 4] [1, 1, 1] : tensor<4x2x8xi32> to tensor<4x2x4xi32>
// CHECK: %[[HIGH:.*]] = tensor.extract_slice %[[QUADS]][0, 0, 4] [4, 2, 4] [1, 1, 1] : tensor<4x2x8xi32> to tensor<4x2x4xi32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<4x2x2x16xi32>)
// CHECK: %[[SUM32:.*]] = linalg.generic {indexing_maps = [#[[QUAD]], #[[QUAD]], #[[QUANTS]], #[[PARTIAL]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[LOW]], %[[HIGH]], %[[Q]] : tensor<4x2x4xi32>, tensor<4x2x4xi32>, tensor<2x2x4x16xi32>) outs(%[[ZERO]] : tensor<4x2x2x16xi32>)
// CHECK:   ^bb0(%[[XL:.*]]: i32, %[[XH:.*]]: i32, %[[W:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK:   %[[B0:.*]] = arith.trunci %[[W]] : i32 to i8
// CHECK:   %[[N0:.*]] = arith.andi %[[B0]], %{{.*}} : i8
// CHECK:   arith.extui %[[N0]] : i8 to i32
// CHECK:   arith.trunci %[[XL]] : i32 to i8
// CHECK-COUNT-3: arith.muli
// CHECK:   %[[B1:.*]] = arith.trunci %[[W]] : i32 to i8
// CHECK:   %[[M0:.*]] = arith.shrui %[[B1]], %{{.*}} : i8
// CHECK:   arith.extui %[[M0]] : i8 to i32
// CHECK:   arith.trunci %[[XH]] : i32 to i8
// CHECK-COUNT-4: arith.muli
// CHECK:   %[[NEXT:.*]] = arith.addi %[[ACC]], %{{.*}} : i32
// CHECK:   linalg.yield %[[NEXT]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[SUM32]], %[[DW]], %[[OFFSETS]], %{{.*}} : tensor<4x2x2x16xi32>, tensor<2x2x16xf16>, tensor<4x2xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2x16xf32>)
// DEFAULT-LABEL: func.func @q4_0x4
// DEFAULT: math.roundeven
// DEFAULT: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x2x4xi32>, tensor<4x2x4xi32>, tensor<2x2x4x16xi32>) outs(%{{.*}} : tensor<4x2x2x16xi32>)
func.func @q4_0x4(%x: tensor<4x64xf32>, %q: tensor<2x2x4x16xi32>, %d: tensor<2x2x16xf16>) -> tensor<4x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %d {config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>, out_features = 32 : i64} : tensor<4x64xf32>, tensor<2x2x4x16xi32>, tensor<2x2x16xf16> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// kquantx4 panels (k-quants a byte a value, biased by 32 to unsigned bytes,
// four of a row in each i32) in blocks of 16 (a Q6_K or a stack with one),
// with minimums, over rows of two super-blocks of 256. The inputs are
// quantized per block of 32 as above, then regrouped per weight block of
// 16: their scales repeated for the two weight blocks of each input block;
// per row and weight block the sum of the int8 inputs, -32 times it (the
// offset taking the quants' bias out) and it times the inputs' scale (the
// sum of the dequantized inputs that the minimums multiply). The weight
// blocks go 16 to a super-block: each step sums a weight quad's bytes as
// they are (byte t: trunci of the lane shifted by 8t, zero-extended) times
// the input quad's signed bytes; then per sub-block `(partial + o) * ((d *
// sc) * dx) - (dmin * m) * xs`, d and dmin the super-block's factors (two
// slices of them), sc and m its integer scale and minimum.
// CHECK-DAG: #[[QUAD:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d3, d4)>
// CHECK-DAG: #[[QUANTS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d4, d5)>
// CHECK-DAG: #[[PARTIAL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d2, d3, d5)>
// CHECK-DAG: #[[SUMS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d2, d3, d4)>
// CHECK-DAG: #[[PERSUPER:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>
// CHECK-DAG: #[[PERSUB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-DAG: #[[PERROW:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d4)>
// CHECK-LABEL: func.func @kquantx4
// CHECK-SAME: (%[[X:.*]]: tensor<4x512xf32>, %[[Q:.*]]: tensor<2x32x4x16xi32>, %[[SC:.*]]: tensor<2x32x16xi8>, %[[MW:.*]]: tensor<2x32x16xi8>, %[[F:.*]]: tensor<2x2x2x16xf32>)
// CHECK: %[[PERBLOCK:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<4x16xf32>)
// CHECK: %[[QX:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x16x32xi8>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[QX]] {{\[}}[0], [1, 2]] : tensor<4x16x32xi8> into tensor<4x512xi8>
// CHECK: %[[QX16:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0], [1, 2]] output_shape [4, 32, 16] : tensor<4x512xi8> into tensor<4x32x16xi8>
// CHECK: %[[SPREAD:.*]] = linalg.generic {{.*}} ins(%[[PERBLOCK]]#0 : tensor<4x16xf32>) outs(%{{.*}} : tensor<4x16x2xf32>)
// CHECK: %[[DX:.*]] = tensor.collapse_shape %[[SPREAD]] {{\[}}[0], [1, 2]] : tensor<4x16x2xf32> into tensor<4x32xf32>
// CHECK: %[[QSUM:.*]] = linalg.generic {{.*}} ins(%[[QX16]] : tensor<4x32x16xi8>) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK:   arith.sitofp %{{.*}} : i8 to f32
// CHECK: %[[OFFSETS:.*]] = linalg.generic {{.*}} ins(%[[QSUM]] : tensor<4x32xf32>)
// CHECK:   arith.constant -3.200000e+01 : f32
// CHECK: %[[XSUMS:.*]] = linalg.generic {{.*}} ins(%[[QSUM]], %[[DX]] : tensor<4x32xf32>, tensor<4x32xf32>)
// CHECK: %[[QUADS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x32x4xi32>)
// CHECK: %[[QUADS2:.*]] = tensor.expand_shape %[[QUADS]] {{\[}}[0], [1, 2], [3]] output_shape [4, 2, 16, 4] : tensor<4x32x4xi32> into tensor<4x2x16x4xi32>
// CHECK: %[[Q2:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 16, 4, 16] : tensor<2x32x4x16xi32> into tensor<2x2x16x4x16xi32>
// CHECK: %[[SUM32:.*]] = linalg.generic {indexing_maps = [#[[QUAD]], #[[QUANTS]], #[[PARTIAL]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[QUADS2]], %[[Q2]] : tensor<4x2x16x4xi32>, tensor<2x2x16x4x16xi32>) outs(%{{.*}} : tensor<4x2x2x16x16xi32>)
// CHECK:   ^bb0(%[[XQ:.*]]: i32, %[[W:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK:   %[[B0:.*]] = arith.trunci %[[W]] : i32 to i8
// CHECK:   arith.extui %[[B0]] : i8 to i32
// CHECK:   %[[X0:.*]] = arith.trunci %[[XQ]] : i32 to i8
// CHECK:   arith.extsi %[[X0]] : i8 to i32
// CHECK-COUNT-4: arith.muli
// CHECK:   %[[NEXT:.*]] = arith.addi %[[ACC]], %{{.*}} : i32
// CHECK:   linalg.yield %[[NEXT]] : i32
// CHECK: %[[D:.*]] = tensor.extract_slice %[[F]][0, 0, 0, 0] [2, 2, 1, 16] [1, 1, 1, 1] : tensor<2x2x2x16xf32> to tensor<2x2x16xf32>
// CHECK: %[[SC2:.*]] = tensor.expand_shape %[[SC]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 16, 16] : tensor<2x32x16xi8> into tensor<2x2x16x16xi8>
// CHECK: %[[DMIN:.*]] = tensor.extract_slice %[[F]][0, 0, 1, 0] [2, 2, 1, 16] [1, 1, 1, 1] : tensor<2x2x2x16xf32> to tensor<2x2x16xf32>
// CHECK: %[[M2:.*]] = tensor.expand_shape %[[MW]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 16, 16] : tensor<2x32x16xi8> into tensor<2x2x16x16xi8>
// CHECK: %[[DX2:.*]] = tensor.expand_shape %[[DX]] {{\[}}[0], [1, 2]] output_shape [4, 2, 16] : tensor<4x32xf32> into tensor<4x2x16xf32>
// CHECK: %[[OFFSETS2:.*]] = tensor.expand_shape %[[OFFSETS]] {{\[}}[0], [1, 2]] output_shape [4, 2, 16]
// CHECK: %[[XSUMS2:.*]] = tensor.expand_shape %[[XSUMS]] {{\[}}[0], [1, 2]] output_shape [4, 2, 16]
// CHECK: linalg.generic {indexing_maps = [#[[SUMS]], #[[PERSUPER]], #[[PERSUB]], #[[PERSUPER]], #[[PERSUB]], #[[PERROW]], #[[PERROW]], #[[PERROW]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[SUM32]], %[[D]], %[[SC2]], %[[DMIN]], %[[M2]], %[[DX2]], %[[OFFSETS2]], %[[XSUMS2]] : {{.*}}) outs(%{{.*}} : tensor<4x2x16xf32>) attrs = {tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, dot = vpdpbusd16>}
// CHECK:   ^bb0(%[[P:[a-z0-9_]+]]: i32, %[[DV:[a-z0-9_]+]]: f32, %[[SCV:[a-z0-9_]+]]: i8, %[[DMINV:[a-z0-9_]+]]: f32, %[[MV:[a-z0-9_]+]]: i8, %[[S:[a-z0-9_]+]]: f32, %[[O:[a-z0-9_]+]]: f32, %[[XS:[a-z0-9_]+]]: f32, %[[OUTACC:[a-z0-9_]+]]: f32):
// CHECK:   %[[WIDE:.*]] = arith.sitofp %[[P]] : i32 to f32
// CHECK:   %[[SHIFTED:.*]] = arith.addf %[[WIDE]], %[[O]] : f32
// CHECK:   %[[SCF:.*]] = arith.sitofp %[[SCV]] : i8 to f32
// CHECK:   %[[SCALE:.*]] = arith.mulf %[[DV]], %[[SCF]] : f32
// CHECK:   %[[SCALEX:.*]] = arith.mulf %[[SCALE]], %[[S]] : f32
// CHECK:   %[[TERM:.*]] = arith.mulf %[[SHIFTED]], %[[SCALEX]] : f32
// CHECK:   %[[MF:.*]] = arith.sitofp %[[MV]] : i8 to f32
// CHECK:   %[[MIN:.*]] = arith.mulf %[[DMINV]], %[[MF]] : f32
// CHECK:   %[[MINS:.*]] = arith.mulf %[[MIN]], %[[XS]] : f32
// CHECK:   %[[NET:.*]] = arith.subf %[[TERM]], %[[MINS]] : f32
// CHECK:   arith.addf %[[OUTACC]], %[[NET]] : f32
func.func @kquantx4(%x: tensor<4x512xf32>, %q: tensor<2x32x4x16xi32>, %sc: tensor<2x32x16xi8>, %m: tensor<2x32x16xi8>, %f: tensor<2x2x2x16xf32>) -> tensor<4x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %sc mins(%m : tensor<2x32x16xi8>) factors(%f : tensor<2x2x2x16xf32>) {config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, dot = vpdpbusd16>, out_features = 32 : i64} : tensor<4x512xf32>, tensor<2x32x4x16xi32>, tensor<2x32x16xi8> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// kquant4x4 panels (Q4_K's nibbles, four bytes of a row in each i32) in
// blocks of 32, 8 to a super-block: q4_0x4's steps (the low nibbles
// against the first half of the input quads, the high against the
// second), no offset (Q4_K's nibbles are unsigned as stored) and no
// regrouping; without minimums (Q6_K's kquantx4, whose factors are d
// alone) the scaled sum has no minimum term either.
// CHECK-LABEL: func.func @kquant4x4
// CHECK-SAME: (%[[X:.*]]: tensor<4x256xf32>, %[[Q:.*]]: tensor<2x8x4x16xi32>, %[[SC:.*]]: tensor<2x8x16xi8>, %[[MW:.*]]: tensor<2x8x16xi8>, %[[F:.*]]: tensor<2x1x2x16xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[QUADS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8x8xi32>)
// CHECK: %[[QUADS2:.*]] = tensor.expand_shape %[[QUADS]] {{\[}}[0], [1, 2], [3]] output_shape [4, 1, 8, 8]
// CHECK: %[[Q2:.*]] = tensor.expand_shape %[[Q]]
// CHECK: %[[LOW:.*]] = tensor.extract_slice %[[QUADS2]][0, 0, 0, 0] [4, 1, 8, 4] [1, 1, 1, 1]
// CHECK: %[[HIGH:.*]] = tensor.extract_slice %[[QUADS2]][0, 0, 0, 4] [4, 1, 8, 4] [1, 1, 1, 1]
// CHECK: %[[SUM32:.*]] = linalg.generic {{.*}} ins(%[[LOW]], %[[HIGH]], %[[Q2]] : tensor<4x1x8x4xi32>, tensor<4x1x8x4xi32>, tensor<2x1x8x4x16xi32>) outs(%{{.*}} : tensor<4x2x1x8x16xi32>)
// CHECK:   arith.andi
// CHECK:   arith.shrui
// CHECK: linalg.generic {{.*}} ins(%[[SUM32]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x2x1x8x16xi32>, tensor<2x1x16xf32>, tensor<2x1x8x16xi8>, tensor<2x1x16xf32>, tensor<2x1x8x16xi8>, tensor<4x1x8xf32>, tensor<4x1x8xf32>) outs(%{{.*}} : tensor<4x2x16xf32>)
// CHECK-NOT: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.subf
// CHECK-LABEL: func.func @q6_k_quads
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x2x1x16x16xi32>, tensor<2x1x16xf32>, tensor<2x1x16x16xi8>, tensor<4x1x16xf32>, tensor<4x1x16xf32>) outs(%{{.*}} : tensor<4x2x16xf32>)
// CHECK-NOT: arith.subf
// CHECK: linalg.yield
func.func @kquant4x4(%x: tensor<4x256xf32>, %q: tensor<2x8x4x16xi32>, %sc: tensor<2x8x16xi8>, %m: tensor<2x8x16xi8>, %f: tensor<2x1x2x16xf32>) -> tensor<4x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %sc mins(%m : tensor<2x8x16xi8>) factors(%f : tensor<2x1x2x16xf32>) {config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>, out_features = 32 : i64} : tensor<4x256xf32>, tensor<2x8x4x16xi32>, tensor<2x8x16xi8> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
func.func @q6_k_quads(%x: tensor<4x256xf32>, %q: tensor<2x16x4x16xi32>, %sc: tensor<2x16x16xi8>, %f: tensor<2x1x1x16xf32>) -> tensor<4x32xf32> {
  %y = tfm_cpu.quantized_linear %x, %q, %sc factors(%f : tensor<2x1x1x16xf32>) {config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, dot = vpdpbusd16>, out_features = 32 : i64} : tensor<4x256xf32>, tensor<2x16x4x16xi32>, tensor<2x16x16xi8> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
