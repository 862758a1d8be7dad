// RUN: tfmc-opt %s -tfm-cpu-tile-projections -canonicalize -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-tile-projections=fuse-epilogues=false -canonicalize -split-input-file | FileCheck %s --check-prefix=UNFUSED

// Q8_0 panels as the tfm_cpu.quantized_linear lowering writes them: the
// per-block dot products, loops (panel, row, block, quant, lane) into
// partial[row, panel, block, lane], then their sum over blocks, each times
// its block's scales, loops (panel, row, block, lane). Decode: threads
// share the 4 panels; per block the micro-kernel steps one quant at a time,
// reads 16 int8 of one panel row with one load (each byte once), widens
// them and does one FMA into a zeroed partial accumulator, then scales the
// partial accumulator once with the block's 16 scales into the output
// accumulator. Both stay in registers; no partial tensor is left.
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q8_0_decode
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: scf.forall (%{{.*}}) in (4) shared_outs
// CHECK:   %[[INIT:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf32>, vector<16xf32>
// CHECK:   scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<16xf32>)
// CHECK:     %[[PARTIAL:.*]] = scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%[[P:.*]] = %[[ZERO]]) -> (vector<16xf32>)
// CHECK:       %[[Q:.*]] = vector.transfer_read {{.*}} : tensor<1x1x1x16xi8>, vector<16xi8>
// CHECK:       %[[WIDE:.*]] = arith.sitofp %[[Q]] : vector<16xi8> to vector<16xf32>
// CHECK-NOT:   arith.mulf
// CHECK:       vector.contract {{.*}} %[[P]] : vector<1x16xf32>, vector<1x16xf32> into vector<16xf32>
// CHECK:     %[[D:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf16>, vector<16xf16>
// CHECK:     %[[SCALE:.*]] = arith.extf %[[D]] : vector<16xf16> to vector<16xf32>
// CHECK:     %[[PB:.*]] = vector.broadcast %[[PARTIAL]] : vector<16xf32> to vector<1x16xf32>
// CHECK:     %[[SB:.*]] = vector.broadcast %[[SCALE]] : vector<16xf32> to vector<1x16xf32>
// CHECK:     vector.contract {{.*}} %[[PB]], %[[SB]], %[[ACC]] : vector<1x16xf32>, vector<1x16xf32> into vector<16xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.fill ins({{.*}}) outs({{.*}} : tensor<1x4x2x16xf32>)
func.func @q8_0_decode(%x: tensor<1x2x32xf32>, %q: tensor<4x2x32x16xi8>, %d: tensor<4x2x16xf16>) -> tensor<1x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x2x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x2x16xf32>) -> tensor<1x4x2x16xf32>
  %partial = linalg.generic {indexing_maps = [#x, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %q : tensor<1x2x32xf32>, tensor<4x2x32x16xi8>) outs(%pinit : tensor<1x4x2x16xf32>) {
  ^bb0(%a: f32, %b: i8, %acc: f32):
    %wq = arith.sitofp %b : i8 to f32
    %m = arith.mulf %a, %wq : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x2x16xf32>
  %e2 = tensor.empty() : tensor<1x4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>}
      ins(%partial, %d : tensor<1x4x2x16xf32>, tensor<4x2x16xf16>) outs(%init : tensor<1x4x16xf32>) {
  ^bb0(%a: f32, %c: f16, %acc: f32):
    %scale = arith.extf %c : f16 to f32
    %m = arith.mulf %a, %scale : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16xf32>
  return %r : tensor<1x4x16xf32>
}

// -----

// Q4_0, prefill of 8 rows with the default 8 accumulators: a register
// tile of 8 partial accumulator rows, zeroed per block (no partial tensor
// is left). One load of 16 bytes, widened to 32-bit lanes, gives both
// unsigned nibbles (the block's columns i and 16 + i) with one `and` and
// one shift, for the 8 rows (the same value in each row, which LLVM
// computes once); the block's offset (-8 times its inputs' sum, a third
// input of the scaled sum) joins each partial sum before the scales, once
// per block.
#xl = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#off = affine_map<(p, s, b, j) -> (s, b)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q4_0_prefill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x1x16xf32>
// CHECK-NOT: tensor.empty() : tensor<8x2x2x16xf32>
// CHECK: scf.forall
// CHECK:   scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK:     %[[PARTIAL:.*]] = scf.for {{.*}} iter_args(%[[P:.*]] = %[[ZERO]]) -> (vector<8x1x16xf32>)
// CHECK:       %[[Q:.*]] = vector.transfer_read {{.*}} : tensor<1x1x1x16xi8>, vector<8x1x1x16xi8>
// CHECK:       %[[WIDE:.*]] = arith.extui %[[Q]] : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
// CHECK-DAG:   arith.andi %[[WIDE]], %{{.*}} : vector<8x1x1x16xi32>
// CHECK-DAG:   arith.shrui %[[WIDE]], %{{.*}} : vector<8x1x1x16xi32>
// CHECK-NOT:   arith.subi
// CHECK:       %[[SUM:.*]] = arith.addf %[[P]], %{{.*}} : vector<8x1x16xf32>
// CHECK:       scf.yield %[[SUM]] : vector<8x1x16xf32>
// CHECK:     %[[OFF:.*]] = vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1x16xf32>
// CHECK:     %[[SHIFTED:.*]] = arith.addf %[[PARTIAL]], %[[OFF]] : vector<8x1x16xf32>
// CHECK:     arith.extf {{.*}} : vector<8x1x16xf16> to vector<8x1x16xf32>
// CHECK:     vector.contract {{.*}} %[[SHIFTED]]
// CHECK-NOT: linalg.generic
func.func @q4_0_prefill(%lo: tensor<8x2x16xf32>, %hi: tensor<8x2x16xf32>, %q: tensor<2x2x16x16xi8>, %d: tensor<2x2x16xf16>, %offsets: tensor<8x2xf32>) -> tensor<8x2x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x2x2x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<8x2x2x16xf32>) -> tensor<8x2x2x16xf32>
  %partial = linalg.generic {indexing_maps = [#xl, #xl, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%lo, %hi, %q : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<2x2x16x16xi8>) outs(%pinit : tensor<8x2x2x16xf32>) {
  ^bb0(%a: f32, %a2: f32, %b: i8, %acc: f32):
    %c15 = arith.constant 15 : i32
    %c4 = arith.constant 4 : i32
    %wide = arith.extui %b : i8 to i32
    %low = arith.andi %wide, %c15 : i32
    %high = arith.shrui %wide, %c4 : i32
    %lf = arith.sitofp %low : i32 to f32
    %hf = arith.sitofp %high : i32 to f32
    %t1 = arith.mulf %a, %lf : f32
    %t2 = arith.mulf %a2, %hf : f32
    %t = arith.addf %t1, %t2 : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<8x2x2x16xf32>
  %e2 = tensor.empty() : tensor<8x2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x2x16xf32>) -> tensor<8x2x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #off, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, accumulators = 8>}
      ins(%partial, %d, %offsets : tensor<8x2x2x16xf32>, tensor<2x2x16xf16>, tensor<8x2xf32>) outs(%init : tensor<8x2x16xf32>) {
  ^bb0(%a: f32, %c: f16, %offset: f32, %acc: f32):
    %shifted = arith.addf %a, %offset : f32
    %scale = arith.extf %c : f16 to f32
    %m = arith.mulf %shifted, %scale : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x2x16xf32>
  return %r : tensor<8x2x16xf32>
}

// -----

// kquant, decode, blocks of 16: the scaled sum also reads the blocks'
// minimums and the input's block sums; per block the partial accumulator
// is scaled by the block's f32 scales (no widening) and the minimums times
// the block's input sum are subtracted, once per block.
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#sum = affine_map<(p, s, b, j) -> (s, b)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @kquant_decode
// CHECK: scf.forall (%{{.*}}) in (4) shared_outs
// CHECK:   scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<16xf32>)
// CHECK:     %[[PARTIAL:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}}) -> (vector<16xf32>)
// CHECK:       vector.transfer_read {{.*}} : tensor<1x1x1x16xi8>, vector<16xi8>
// CHECK:     %[[D:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf32>, vector<16xf32>
// CHECK:     %[[M:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf32>, vector<16xf32>
// CHECK:     arith.mulf %[[PARTIAL]], %[[D]] : vector<16xf32>
// CHECK:     arith.mulf %[[M]], %{{.*}} : vector<16xf32>
// CHECK:     arith.subf
// CHECK:     arith.addf %[[ACC]], %{{.*}} : vector<16xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
func.func @kquant_decode(%x: tensor<1x4x16xf32>, %q: tensor<4x4x16x16xi8>, %d: tensor<4x4x16xf32>, %m: tensor<4x4x16xf32>, %sums: tensor<1x4xf32>) -> tensor<1x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %partial = linalg.generic {indexing_maps = [#x, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %q : tensor<1x4x16xf32>, tensor<4x4x16x16xi8>) outs(%pinit : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %b: i8, %acc: f32):
    %wq = arith.sitofp %b : i8 to f32
    %p = arith.mulf %a, %wq : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  %e2 = tensor.empty() : tensor<1x4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #d, #sum, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = kquant, accumulators = 8>}
      ins(%partial, %d, %m, %sums : tensor<1x4x4x16xf32>, tensor<4x4x16xf32>, tensor<4x4x16xf32>, tensor<1x4xf32>) outs(%init : tensor<1x4x16xf32>) {
  ^bb0(%a: f32, %scale: f32, %min: f32, %sum: f32, %acc: f32):
    %scaled = arith.mulf %a, %scale : f32
    %offset = arith.mulf %min, %sum : f32
    %term = arith.subf %scaled, %offset : f32
    %s = arith.addf %acc, %term : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16xf32>
  return %r : tensor<1x4x16xf32>
}

// -----

// Q4_0 over int8 inputs (tfm-cpu-lower-projections, int8 inputs), prefill of 8
// rows: 16-bit integer sums per half block, loops (panel, row, block,
// half, step, lane), then their scaled sum with the inputs' offsets and
// scales per row and block, loops (panel, row, block, half, lane). The
// kernel takes one half block at a time: 8 steps into a zeroed 16-bit
// register tile (each step one broadcast of the rows' input pairs and one
// load of 16 quant bytes), then the half block's sum, plus the offset,
// times the weights' scales times the inputs', into the f32 accumulators.
#pair = affine_map<(p, s, b, h, i, j) -> (s, b, h, i)>
#w = affine_map<(p, s, b, h, i, j) -> (p, b, h, i, j)>
#po = affine_map<(p, s, b, h, i, j) -> (s, p, b, h, j)>
#pi = affine_map<(p, s, b, h, j) -> (s, p, b, h, j)>
#d = affine_map<(p, s, b, h, j) -> (p, b, j)>
#rb = affine_map<(p, s, b, h, j) -> (s, b)>
#o = affine_map<(p, s, b, h, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q4_0_int8_prefill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0> : vector<8x1x1x16xi16>
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK:   scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK:     scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8x16xf32>)
// CHECK:       %[[HALF:.*]] = scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%[[P:.*]] = %[[ZERO]]) -> (vector<8x1x1x16xi16>)
// CHECK:         %[[PAIRS:.*]] = vector.transfer_read {{.*}} : tensor<8x1x1x1xi16>, vector<8x1x1x1x16xi16>
// CHECK:         %[[Q:.*]] = vector.transfer_read {{.*}} : tensor<1x1x1x1x16xi8>, vector<8x1x1x1x16xi8>
// CHECK:         %[[WIDE:.*]] = arith.extui %[[Q]] : vector<8x1x1x1x16xi8> to vector<8x1x1x1x16xi16>
// CHECK:         arith.muli
// CHECK:         arith.muli
// CHECK:         %[[STEP:.*]] = arith.addi
// CHECK:         %[[CAST:.*]] = vector.shape_cast %[[STEP]] : vector<8x1x1x1x16xi16> to vector<8x1x1x16xi16>
// CHECK:         %[[NEXT:.*]] = arith.addi %[[P]], %[[CAST]] : vector<8x1x1x16xi16>
// CHECK:         scf.yield %[[NEXT]]
// CHECK:       %[[D:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16xf16>, vector<8x1x1x16xf16>
// CHECK:       %[[OFF:.*]] = vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1x1x16xf32>
// CHECK:       %[[DX:.*]] = vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1x1x16xf32>
// CHECK:       %[[SUM:.*]] = arith.sitofp %[[HALF]] : vector<8x1x1x16xi16> to vector<8x1x1x16xf32>
// CHECK:       %[[SHIFTED:.*]] = arith.addf %[[SUM]], %[[OFF]]
// CHECK:       %[[DW:.*]] = arith.extf %[[D]]
// CHECK:       %[[SCALE:.*]] = arith.mulf %[[DW]], %[[DX]]
// CHECK:       vector.contract {{.*}} %[[SHIFTED]], %[[SCALE]], %[[ACC]] : vector<8x1x1x16xf32>, vector<8x1x1x16xf32> into vector<8x16xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
func.func @q4_0_int8_prefill(%pairs: tensor<8x2x2x8xi16>, %q: tensor<2x2x2x8x16xi8>, %d: tensor<2x2x16xf16>, %offsets: tensor<8x2xf32>, %dx: tensor<8x2xf32>) -> tensor<8x2x16xf32> {
  %c0 = arith.constant 0 : i16
  %e = tensor.empty() : tensor<8x2x2x2x16xi16>
  %pinit = linalg.fill ins(%c0 : i16) outs(%e : tensor<8x2x2x2x16xi16>) -> tensor<8x2x2x2x16xi16>
  %partial = linalg.generic {indexing_maps = [#pair, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%pairs, %q : tensor<8x2x2x8xi16>, tensor<2x2x2x8x16xi8>) outs(%pinit : tensor<8x2x2x2x16xi16>) {
  ^bb0(%a: i16, %b: i8, %acc: i16):
    %c15 = arith.constant 15 : i16
    %c4 = arith.constant 4 : i16
    %c8 = arith.constant 8 : i16
    %wide = arith.extui %b : i8 to i16
    %low = arith.andi %wide, %c15 : i16
    %high = arith.shrui %wide, %c4 : i16
    %lo8 = arith.trunci %a : i16 to i8
    %lo = arith.extsi %lo8 : i8 to i16
    %sh = arith.shrui %a, %c8 : i16
    %hi8 = arith.trunci %sh : i16 to i8
    %hi = arith.extsi %hi8 : i8 to i16
    %t1 = arith.muli %low, %lo : i16
    %t2 = arith.muli %high, %hi : i16
    %t = arith.addi %t1, %t2 : i16
    %s = arith.addi %acc, %t : i16
    linalg.yield %s : i16
  } -> tensor<8x2x2x2x16xi16>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x2x16xf32>) -> tensor<8x2x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #rb, #rb, #o], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 8>}
      ins(%partial, %d, %offsets, %dx : tensor<8x2x2x2x16xi16>, tensor<2x2x16xf16>, tensor<8x2xf32>, tensor<8x2xf32>) outs(%init : tensor<8x2x16xf32>) {
  ^bb0(%a: i16, %c: f16, %offset: f32, %scale: f32, %acc: f32):
    %af = arith.sitofp %a : i16 to f32
    %shifted = arith.addf %af, %offset : f32
    %ws = arith.extf %c : f16 to f32
    %both = arith.mulf %ws, %scale : f32
    %m = arith.mulf %shifted, %both : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x2x16xf32>
  return %r : tensor<8x2x16xf32>
}

// -----

// Q8_0 over int8 inputs (q8_0x4 panels), prefill of 8 rows: 32-bit integer
// sums per block of four-byte quads, loops (panel, row, block, step, lane),
// then their scaled sum with the inputs' offsets and scales per row and
// block, loops (panel, row, block, lane). The kernel takes one block at a
// time: 8 steps into a zeroed 32-bit register tile (each step one
// broadcast of the rows' input quads and one load of 16 quant quads), then
// the block's sum, plus the offset, times the weights' scales times the
// inputs', into the f32 accumulators.
#quad = affine_map<(p, s, b, i, j) -> (s, b, i)>
#wq = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#pq = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi4 = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d4 = affine_map<(p, s, b, j) -> (p, b, j)>
#rb4 = affine_map<(p, s, b, j) -> (s, b)>
#o4 = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q8_0x4_prefill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0> : vector<8x1x16xi32>
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK:     scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8x16xf32>)
// CHECK:       %[[BLOCK:.*]] = scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%[[P:.*]] = %[[ZERO]]) -> (vector<8x1x16xi32>)
// CHECK:         %[[X:.*]] = vector.transfer_read {{.*}} : tensor<8x1x1xi32>, vector<8x1x1x16xi32>
// CHECK:         %[[Q:.*]] = vector.transfer_read {{.*}} : tensor<1x1x1x16xi32>, vector<8x1x1x16xi32>
// CHECK-COUNT-4: arith.muli
// CHECK:         %[[CAST:.*]] = vector.shape_cast %{{.*}} : vector<8x1x1x16xi32> to vector<8x1x16xi32>
// CHECK:         %[[NEXT:.*]] = arith.addi %[[P]], %[[CAST]] : vector<8x1x16xi32>
// CHECK:         scf.yield %[[NEXT]]
// CHECK:       %[[OFF:.*]] = vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1x16xf32>
// CHECK:       %[[DX:.*]] = vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1x16xf32>
// CHECK:       %[[SUM:.*]] = arith.sitofp %[[BLOCK]] : vector<8x1x16xi32> to vector<8x1x16xf32>
// CHECK:       %[[SHIFTED:.*]] = arith.addf %[[SUM]], %[[OFF]]
// CHECK:       %[[DW:.*]] = arith.extf
// CHECK:       %[[SCALE:.*]] = arith.mulf %[[DW]], %[[DX]]
// CHECK:       vector.contract {{.*}} %[[SHIFTED]], %[[SCALE]], %[[ACC]] : vector<8x1x16xf32>, vector<8x1x16xf32> into vector<8x16xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
func.func @q8_0x4_prefill(%quads: tensor<8x2x8xi32>, %q: tensor<2x2x8x16xi32>, %d: tensor<2x2x16xf16>, %offsets: tensor<8x2xf32>, %dx: tensor<8x2xf32>) -> tensor<8x2x16xf32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x2x2x16xi32>
  %pinit = linalg.fill ins(%c0 : i32) outs(%e : tensor<8x2x2x16xi32>) -> tensor<8x2x2x16xi32>
  %partial = linalg.generic {indexing_maps = [#quad, #wq, #pq], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%quads, %q : tensor<8x2x8xi32>, tensor<2x2x8x16xi32>) outs(%pinit : tensor<8x2x2x16xi32>) {
  ^bb0(%x: i32, %w: i32, %acc: i32):
    %flip = arith.constant -128 : i8
    %c8 = arith.constant 8 : i32
    %c16 = arith.constant 16 : i32
    %c24 = arith.constant 24 : i32
    %w0 = arith.trunci %w : i32 to i8
    %x0 = arith.trunci %x : i32 to i8
    %ws1 = arith.shrui %w, %c8 : i32
    %xs1 = arith.shrui %x, %c8 : i32
    %w1 = arith.trunci %ws1 : i32 to i8
    %x1 = arith.trunci %xs1 : i32 to i8
    %ws2 = arith.shrui %w, %c16 : i32
    %xs2 = arith.shrui %x, %c16 : i32
    %w2 = arith.trunci %ws2 : i32 to i8
    %x2 = arith.trunci %xs2 : i32 to i8
    %ws3 = arith.shrui %w, %c24 : i32
    %xs3 = arith.shrui %x, %c24 : i32
    %w3 = arith.trunci %ws3 : i32 to i8
    %x3 = arith.trunci %xs3 : i32 to i8
    %f0 = arith.xori %w0, %flip : i8
    %f1 = arith.xori %w1, %flip : i8
    %f2 = arith.xori %w2, %flip : i8
    %f3 = arith.xori %w3, %flip : i8
    %u0 = arith.extui %f0 : i8 to i32
    %u1 = arith.extui %f1 : i8 to i32
    %u2 = arith.extui %f2 : i8 to i32
    %u3 = arith.extui %f3 : i8 to i32
    %s0 = arith.extsi %x0 : i8 to i32
    %s1 = arith.extsi %x1 : i8 to i32
    %s2 = arith.extsi %x2 : i8 to i32
    %s3 = arith.extsi %x3 : i8 to i32
    %p0 = arith.muli %u0, %s0 : i32
    %p1 = arith.muli %u1, %s1 : i32
    %p2 = arith.muli %u2, %s2 : i32
    %p3 = arith.muli %u3, %s3 : i32
    %a = arith.addi %p0, %p1 : i32
    %b = arith.addi %a, %p2 : i32
    %c = arith.addi %b, %p3 : i32
    %s = arith.addi %acc, %c : i32
    linalg.yield %s : i32
  } -> tensor<8x2x2x16xi32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x2x16xf32>) -> tensor<8x2x16xf32>
  %r = linalg.generic {indexing_maps = [#pi4, #d4, #rb4, #rb4, #o4], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8>}
      ins(%partial, %d, %offsets, %dx : tensor<8x2x2x16xi32>, tensor<2x2x16xf16>, tensor<8x2xf32>, tensor<8x2xf32>) outs(%init : tensor<8x2x16xf32>) {
  ^bb0(%a: i32, %c: f16, %offset: f32, %scale: f32, %acc: f32):
    %af = arith.sitofp %a : i32 to f32
    %shifted = arith.addf %af, %offset : f32
    %ws = arith.extf %c : f16 to f32
    %both = arith.mulf %ws, %scale : f32
    %m = arith.mulf %shifted, %both : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x2x16xf32>
  return %r : tensor<8x2x16xf32>
}

// -----

// Q4_0 over int8 inputs (q4_0x4 panels): the partial sums read two input
// quads per step (the low nibbles' and the high nibbles'), over the
// block's 4 steps; otherwise as q8_0x4.
#quad = affine_map<(p, s, b, i, j) -> (s, b, i)>
#wq = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#pq = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi4 = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d4 = affine_map<(p, s, b, j) -> (p, b, j)>
#rb4 = affine_map<(p, s, b, j) -> (s, b)>
#o4 = affine_map<(p, s, b, j) -> (s, p, j)>
// CHECK-LABEL: func.func @q4_0x4_prefill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0> : vector<8x1x16xi32>
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK:     scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8x16xf32>)
// CHECK:       %[[BLOCK:.*]] = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[P:.*]] = %[[ZERO]]) -> (vector<8x1x16xi32>)
// CHECK-DAG:     vector.transfer_read {{.*}} : tensor<8x1x1xi32>, vector<8x1x1x16xi32>
// CHECK-DAG:     vector.transfer_read {{.*}} : tensor<8x1x1xi32>, vector<8x1x1x16xi32>
// CHECK-DAG:     vector.transfer_read {{.*}} : tensor<1x1x1x16xi32>, vector<8x1x1x16xi32>
// CHECK-COUNT-8: arith.muli
// CHECK:         %[[CAST:.*]] = vector.shape_cast %{{.*}} : vector<8x1x1x16xi32> to vector<8x1x16xi32>
// CHECK:         %[[NEXT:.*]] = arith.addi %[[P]], %[[CAST]] : vector<8x1x16xi32>
// CHECK:         scf.yield %[[NEXT]]
// CHECK:       arith.sitofp %[[BLOCK]] : vector<8x1x16xi32> to vector<8x1x16xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
func.func @q4_0x4_prefill(%low: tensor<8x2x4xi32>, %high: tensor<8x2x4xi32>, %q: tensor<2x2x4x16xi32>, %d: tensor<2x2x16xf16>, %offsets: tensor<8x2xf32>, %dx: tensor<8x2xf32>) -> tensor<8x2x16xf32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x2x2x16xi32>
  %pinit = linalg.fill ins(%c0 : i32) outs(%e : tensor<8x2x2x16xi32>) -> tensor<8x2x2x16xi32>
  %partial = linalg.generic {indexing_maps = [#quad, #quad, #wq, #pq], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%low, %high, %q : tensor<8x2x4xi32>, tensor<8x2x4xi32>, tensor<2x2x4x16xi32>) outs(%pinit : tensor<8x2x2x16xi32>) {
  ^bb0(%lo: i32, %hi: i32, %w: i32, %acc: i32):
    %c15 = arith.constant 15 : i8
    %c4 = arith.constant 4 : i8
    %c8 = arith.constant 8 : i32
    %c16 = arith.constant 16 : i32
    %c24 = arith.constant 24 : i32
    %w0 = arith.trunci %w : i32 to i8
    %lo0 = arith.trunci %lo : i32 to i8
    %hi0 = arith.trunci %hi : i32 to i8
    %n0 = arith.andi %w0, %c15 : i8
    %m0 = arith.shrui %w0, %c4 : i8
    %un0 = arith.extui %n0 : i8 to i32
    %um0 = arith.extui %m0 : i8 to i32
    %sl0 = arith.extsi %lo0 : i8 to i32
    %sh0 = arith.extsi %hi0 : i8 to i32
    %pl0 = arith.muli %un0, %sl0 : i32
    %ph0 = arith.muli %um0, %sh0 : i32
    %ws1 = arith.shrui %w, %c8 : i32
    %w1 = arith.trunci %ws1 : i32 to i8
    %los1 = arith.shrui %lo, %c8 : i32
    %lo1 = arith.trunci %los1 : i32 to i8
    %his1 = arith.shrui %hi, %c8 : i32
    %hi1 = arith.trunci %his1 : i32 to i8
    %n1 = arith.andi %w1, %c15 : i8
    %m1 = arith.shrui %w1, %c4 : i8
    %un1 = arith.extui %n1 : i8 to i32
    %um1 = arith.extui %m1 : i8 to i32
    %sl1 = arith.extsi %lo1 : i8 to i32
    %sh1 = arith.extsi %hi1 : i8 to i32
    %pl1 = arith.muli %un1, %sl1 : i32
    %ph1 = arith.muli %um1, %sh1 : i32
    %ws2 = arith.shrui %w, %c16 : i32
    %w2 = arith.trunci %ws2 : i32 to i8
    %los2 = arith.shrui %lo, %c16 : i32
    %lo2 = arith.trunci %los2 : i32 to i8
    %his2 = arith.shrui %hi, %c16 : i32
    %hi2 = arith.trunci %his2 : i32 to i8
    %n2 = arith.andi %w2, %c15 : i8
    %m2 = arith.shrui %w2, %c4 : i8
    %un2 = arith.extui %n2 : i8 to i32
    %um2 = arith.extui %m2 : i8 to i32
    %sl2 = arith.extsi %lo2 : i8 to i32
    %sh2 = arith.extsi %hi2 : i8 to i32
    %pl2 = arith.muli %un2, %sl2 : i32
    %ph2 = arith.muli %um2, %sh2 : i32
    %ws3 = arith.shrui %w, %c24 : i32
    %w3 = arith.trunci %ws3 : i32 to i8
    %los3 = arith.shrui %lo, %c24 : i32
    %lo3 = arith.trunci %los3 : i32 to i8
    %his3 = arith.shrui %hi, %c24 : i32
    %hi3 = arith.trunci %his3 : i32 to i8
    %n3 = arith.andi %w3, %c15 : i8
    %m3 = arith.shrui %w3, %c4 : i8
    %un3 = arith.extui %n3 : i8 to i32
    %um3 = arith.extui %m3 : i8 to i32
    %sl3 = arith.extsi %lo3 : i8 to i32
    %sh3 = arith.extsi %hi3 : i8 to i32
    %pl3 = arith.muli %un3, %sl3 : i32
    %ph3 = arith.muli %um3, %sh3 : i32
    %a = arith.addi %pl0, %pl1 : i32
    %b = arith.addi %a, %pl2 : i32
    %lows = arith.addi %b, %pl3 : i32
    %c = arith.addi %ph0, %ph1 : i32
    %e1 = arith.addi %c, %ph2 : i32
    %highs = arith.addi %e1, %ph3 : i32
    %both = arith.addi %lows, %highs : i32
    %s = arith.addi %acc, %both : i32
    linalg.yield %s : i32
  } -> tensor<8x2x2x16xi32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x2x16xf32>) -> tensor<8x2x16xf32>
  %r = linalg.generic {indexing_maps = [#pi4, #d4, #rb4, #rb4, #o4], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8>}
      ins(%partial, %d, %offsets, %dx : tensor<8x2x2x16xi32>, tensor<2x2x16xf16>, tensor<8x2xf32>, tensor<8x2xf32>) outs(%init : tensor<8x2x16xf32>) {
  ^bb0(%a: i32, %c: f16, %offset: f32, %scale: f32, %acc: f32):
    %af = arith.sitofp %a : i32 to f32
    %shifted = arith.addf %af, %offset : f32
    %ws = arith.extf %c : f16 to f32
    %both = arith.mulf %ws, %scale : f32
    %m = arith.mulf %shifted, %both : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x2x16xf32>
  return %r : tensor<8x2x16xf32>
}

// -----

// A gated Q8_0 projection (tfm-fuse-ffn's stacked gate/up, 2 x 4 panels)
// and its SwiGLU epilogue, decode: the scaled sum and its partial products
// are split into halves, each reading its half of the quants and scales,
// and each task computes one panel of both halves with the block
// micro-kernel, then silu(gate) * up for that panel while it is in
// registers and cache: one parallel loop, where unfused there are two.
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>
// CHECK-LABEL: func.func @q8_0_gated_decode
// CHECK-DAG: %[[GATE_Q:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [4, 2, 32, 16]
// CHECK-DAG: %[[GATE_D:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [4, 2, 16]
// CHECK-DAG: %[[UP_Q:.*]] = tensor.extract_slice %{{.*}}[4, 0, 0, 0] [4, 2, 32, 16]
// CHECK-DAG: %[[UP_D:.*]] = tensor.extract_slice %{{.*}}[4, 0, 0] [4, 2, 16]
// CHECK: %[[Y:.*]] = scf.forall (%[[P:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x4x16xf32>)
// CHECK:   tensor.extract_slice %[[GATE_Q]][%[[P]], 0, 0, 0] [1, 2, 32, 16]
// CHECK:   tensor.extract_slice %[[GATE_D]][%[[P]], 0, 0] [1, 2, 16]
// CHECK:   %[[GATE:.*]] = scf.for {{.*}} -> (vector<16xf32>)
// CHECK:   tensor.extract_slice %[[UP_Q]][%[[P]], 0, 0, 0] [1, 2, 32, 16]
// CHECK:   tensor.extract_slice %[[UP_D]][%[[P]], 0, 0] [1, 2, 16]
// CHECK:   %[[UP:.*]] = scf.for {{.*}} -> (vector<16xf32>)
// CHECK:   arith.negf %[[GATE]] : vector<16xf32>
// CHECK:   math.exp {{.*}} : vector<16xf32>
// CHECK:   arith.mulf {{.*}}, %[[UP]] : vector<16xf32>
// CHECK:   tensor.parallel_insert_slice {{.*}} into %[[OUT]][0, %[[P]], 0] [1, 1, 16]
// CHECK-NOT: scf.forall
// CHECK: %[[COLUMNS:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2]] : tensor<1x4x16xf32> into tensor<1x64xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[COLUMNS]]
// UNFUSED-LABEL: func.func @q8_0_gated_decode
// UNFUSED: scf.forall (%{{.*}}) in (8)
// UNFUSED: tensor.collapse_shape
// UNFUSED: linalg.generic
// UNFUSED: math.exp
func.func @q8_0_gated_decode(%x: tensor<1x2x32xf32>, %q: tensor<8x2x32x16xi8>, %d: tensor<8x2x16xf16>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x8x2x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  %partial = linalg.generic {indexing_maps = [#x, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %q : tensor<1x2x32xf32>, tensor<8x2x32x16xi8>) outs(%pinit : tensor<1x8x2x16xf32>) {
  ^bb0(%a: f32, %b: i8, %acc: f32):
    %wq = arith.sitofp %b : i8 to f32
    %m = arith.mulf %a, %wq : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x2x16xf32>
  %e2 = tensor.empty() : tensor<1x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, accumulators = 8>}
      ins(%partial, %d : tensor<1x8x2x16xf32>, tensor<8x2x16xf16>) outs(%init : tensor<1x8x16xf32>) {
  ^bb0(%a: f32, %c: f16, %acc: f32):
    %scale = arith.extf %c : f16 to f32
    %m = arith.mulf %a, %scale : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<1x8x16xf32> into tensor<1x128xf32>
  %gate = tensor.extract_slice %columns[0, 0] [1, 64] [1, 1] : tensor<1x128xf32> to tensor<1x64xf32>
  %up = tensor.extract_slice %columns[0, 64] [1, 64] [1, 1] : tensor<1x128xf32> to tensor<1x64xf32>
  %out = tensor.empty() : tensor<1x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<1x64xf32>, tensor<1x64xf32>) outs(%out : tensor<1x64xf32>) {
  ^bb0(%g: f32, %u: f32, %unused: f32):
    %n = arith.negf %g : f32
    %ex = math.exp %n : f32
    %den = arith.addf %ex, %one : f32
    %silu = arith.divf %g, %den : f32
    %prod = arith.mulf %silu, %u : f32
    linalg.yield %prod : f32
  } -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// A k-quant projection and a residual add, decode: the add reads the
// projection's columns and a residual row, and joins each task after its
// panel's block micro-kernel. The scaled sum's operands per row and block
// (the input's block sums) are read whole by every task; its operands per
// panel (scales, minimums) and its partial products' quants are sliced to
// the task's panel.
#x = affine_map<(p, s, b, i, j) -> (s, b, i)>
#w = affine_map<(p, s, b, i, j) -> (p, b, i, j)>
#po = affine_map<(p, s, b, i, j) -> (s, p, b, j)>
#pi = affine_map<(p, s, b, j) -> (s, p, b, j)>
#d = affine_map<(p, s, b, j) -> (p, b, j)>
#sum = affine_map<(p, s, b, j) -> (s, b)>
#o = affine_map<(p, s, b, j) -> (s, p, j)>
#id = affine_map<(s, n) -> (s, n)>
// CHECK-LABEL: func.func @kquant_residual_decode
// CHECK-SAME: %[[Q:[^:]*]]: tensor<4x4x16x16xi8>, %[[D:[^:]*]]: tensor<4x4x16xf32>, %[[M:[^:]*]]: tensor<4x4x16xf32>, %[[SUMS:[^:]*]]: tensor<1x4xf32>, %[[RES:[^:]*]]: tensor<1x64xf32>
// CHECK: %[[RES_PANELS:.*]] = tensor.expand_shape %[[RES]] {{\[\[}}0], [1, 2]] output_shape [1, 4, 16]
// CHECK: scf.forall (%[[P:.*]]) in (4) shared_outs
// CHECK:   tensor.extract_slice %[[Q]][%[[P]], 0, 0, 0] [1, 4, 16, 16]
// CHECK:   tensor.extract_slice %[[D]][%[[P]], 0, 0] [1, 4, 16]
// CHECK:   tensor.extract_slice %[[M]][%[[P]], 0, 0] [1, 4, 16]
// CHECK:   %[[Y:.*]] = scf.for %[[B:[^ ]*]] = {{.*}} -> (vector<16xf32>)
// CHECK:     tensor.extract_slice %[[SUMS]][0, %[[B]]] [1, 1]
// CHECK:   } {tfm_cpu.config
// CHECK:   tensor.extract_slice %[[RES_PANELS]][0, %[[P]], 0] [1, 1, 16]
// CHECK:   vector.transfer_read
// CHECK:   arith.addf %[[Y]], {{.*}} : vector<16xf32>
// CHECK:   tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
// UNFUSED-LABEL: func.func @kquant_residual_decode
// UNFUSED: scf.forall (%{{.*}}) in (4)
// UNFUSED: linalg.generic
// UNFUSED-SAME: ["parallel", "parallel"]
func.func @kquant_residual_decode(%x: tensor<1x4x16xf32>, %q: tensor<4x4x16x16xi8>, %d: tensor<4x4x16xf32>, %m: tensor<4x4x16xf32>, %sums: tensor<1x4xf32>, %residual: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %partial = linalg.generic {indexing_maps = [#x, #w, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %q : tensor<1x4x16xf32>, tensor<4x4x16x16xi8>) outs(%pinit : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %b: i8, %acc: f32):
    %wq = arith.sitofp %b : i8 to f32
    %p = arith.mulf %a, %wq : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  %e2 = tensor.empty() : tensor<1x4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %r = linalg.generic {indexing_maps = [#pi, #d, #d, #sum, #o], iterator_types = ["parallel", "parallel", "reduction", "parallel"], tfm_cpu.config = #tfm_cpu.projection<panels = kquant, accumulators = 8>}
      ins(%partial, %d, %m, %sums : tensor<1x4x4x16xf32>, tensor<4x4x16xf32>, tensor<4x4x16xf32>, tensor<1x4xf32>) outs(%init : tensor<1x4x16xf32>) {
  ^bb0(%a: f32, %scale: f32, %min: f32, %sum: f32, %acc: f32):
    %scaled = arith.mulf %a, %scale : f32
    %offset = arith.mulf %min, %sum : f32
    %term = arith.subf %scaled, %offset : f32
    %s = arith.addf %acc, %term : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16xf32>
  %columns = tensor.collapse_shape %r [[0], [1, 2]] : tensor<1x4x16xf32> into tensor<1x64xf32>
  %out = tensor.empty() : tensor<1x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%columns, %residual : tensor<1x64xf32>, tensor<1x64xf32>) outs(%out : tensor<1x64xf32>) {
  ^bb0(%a: f32, %b: f32, %unused: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}
