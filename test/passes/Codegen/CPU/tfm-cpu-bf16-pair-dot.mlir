// RUN: tfmc-opt %s -split-input-file -tfm-cpu-bf16-pair-dot | FileCheck %s

// The lowering's form (bf16 panels over bf16 input pairs, vectorised): per
// 32-bit lane of input pairs, the odd weight times the high bf16 (`x &
// 0xFFFF0000`, -65536) plus the even weight times the low one (`x << 16`),
// added to the accumulator. In a kernel whose configuration asks for
// vdpbf16ps (AVX512_BF16), 16 lanes go through one
// vdpbf16ps on the input pairs as they are and the weights interleaved
// into pairs (even in the low half of each lane).

// CHECK-LABEL: func.func @pair
// CHECK-SAME: (%[[EVEN:.*]]: vector<16xbf16>, %[[ODD:.*]]: vector<16xbf16>, %[[X:.*]]: vector<16xi32>, %[[ACC:.*]]: vector<16xf32>)
// CHECK: %[[W:.*]] = vector.interleave %[[EVEN]], %[[ODD]] : vector<16xbf16> -> vector<32xbf16>
// CHECK: %[[XP:.*]] = vector.bitcast %[[X]] : vector<16xi32> to vector<32xbf16>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%[[ACC]], %[[W]], %[[XP]]) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// CHECK: return %[[R]]
func.func @pair(%even: vector<16xbf16>, %odd: vector<16xbf16>, %x: vector<16xi32>, %acc: vector<16xf32>) -> vector<16xf32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8, dot = vdpbf16ps>} {
  %c16 = arith.constant dense<16> : vector<16xi32>
  %high_mask = arith.constant dense<-65536> : vector<16xi32>
  %lo_bits = arith.shli %x, %c16 : vector<16xi32>
  %lo = arith.bitcast %lo_bits : vector<16xi32> to vector<16xf32>
  %hi_bits = arith.andi %x, %high_mask : vector<16xi32>
  %hi = arith.bitcast %hi_bits : vector<16xi32> to vector<16xf32>
  %w0 = arith.extf %even : vector<16xbf16> to vector<16xf32>
  %w1 = arith.extf %odd : vector<16xbf16> to vector<16xf32>
  %p1 = arith.mulf %w1, %hi : vector<16xf32>
  %p0 = arith.mulf %w0, %lo : vector<16xf32>
  %step = arith.addf %p1, %p0 : vector<16xf32>
  %r = arith.addf %acc, %step : vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// A register tile of two rows: the sum of products reshaped to the
// accumulator's shape, the accumulator on the right, the products in the
// other order with their operands swapped. One instruction per 16 lanes,
// each on its slice.

// CHECK-LABEL: func.func @tile
// CHECK-SAME: (%[[EVEN:.*]]: vector<2x1x16xbf16>, %[[ODD:.*]]: vector<2x1x16xbf16>, %[[X:.*]]: vector<2x1x16xi32>, %[[ACC:.*]]: vector<2x16xf32>)
// CHECK: %[[EF:.*]] = vector.shape_cast %[[EVEN]] : vector<2x1x16xbf16> to vector<32xbf16>
// CHECK: %[[OF:.*]] = vector.shape_cast %[[ODD]] : vector<2x1x16xbf16> to vector<32xbf16>
// CHECK: %[[XF:.*]] = vector.shape_cast %[[X]] : vector<2x1x16xi32> to vector<32xi32>
// CHECK: %[[AF:.*]] = vector.shape_cast %[[ACC]] : vector<2x16xf32> to vector<32xf32>
// CHECK: %[[E0:.*]] = vector.extract_strided_slice %[[EF]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[O0:.*]] = vector.extract_strided_slice %[[OF]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[W0:.*]] = vector.interleave %[[E0]], %[[O0]]
// CHECK: %[[X0:.*]] = vector.extract_strided_slice %[[XF]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[XP0:.*]] = vector.bitcast %[[X0]] : vector<16xi32> to vector<32xbf16>
// CHECK: %[[A0:.*]] = vector.extract_strided_slice %[[AF]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[R0:.*]] = llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%[[A0]], %[[W0]], %[[XP0]])
// CHECK: %[[S0:.*]] = vector.insert_strided_slice %[[R0]], %[[AF]] {offsets = [0], strides = [1]}
// CHECK: vector.extract_strided_slice %[[EF]] {offsets = [16], sizes = [16], strides = [1]}
// CHECK: %[[R1:.*]] = llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// CHECK: %[[S1:.*]] = vector.insert_strided_slice %[[R1]], %[[S0]] {offsets = [16], strides = [1]}
// CHECK: %[[R:.*]] = vector.shape_cast %[[S1]] : vector<32xf32> to vector<2x16xf32>
// CHECK: return %[[R]]
func.func @tile(%even: vector<2x1x16xbf16>, %odd: vector<2x1x16xbf16>, %x: vector<2x1x16xi32>, %acc: vector<2x16xf32>) -> vector<2x16xf32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8, dot = vdpbf16ps>} {
  %c16 = arith.constant dense<16> : vector<2x1x16xi32>
  %high_mask = arith.constant dense<-65536> : vector<2x1x16xi32>
  %lo_bits = arith.shli %x, %c16 : vector<2x1x16xi32>
  %lo = arith.bitcast %lo_bits : vector<2x1x16xi32> to vector<2x1x16xf32>
  %hi_bits = arith.andi %x, %high_mask : vector<2x1x16xi32>
  %hi = arith.bitcast %hi_bits : vector<2x1x16xi32> to vector<2x1x16xf32>
  %w0 = arith.extf %even : vector<2x1x16xbf16> to vector<2x1x16xf32>
  %w1 = arith.extf %odd : vector<2x1x16xbf16> to vector<2x1x16xf32>
  %p0 = arith.mulf %lo, %w0 : vector<2x1x16xf32>
  %p1 = arith.mulf %hi, %w1 : vector<2x1x16xf32>
  %step = arith.addf %p0, %p1 : vector<2x1x16xf32>
  %flat = vector.shape_cast %step : vector<2x1x16xf32> to vector<2x16xf32>
  %r = arith.addf %flat, %acc : vector<2x16xf32>
  return %r : vector<2x16xf32>
}

// -----

// Without the instruction in the configuration (no AVX512_BF16) the form
// stays portable vector arithmetic; with it,
// a sum whose products read different input pairs, or two products of the
// same half, is not a lane of the instruction.

// CHECK-LABEL: func.func @no_bf16
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.mulf
func.func @no_bf16(%even: vector<16xbf16>, %odd: vector<16xbf16>, %x: vector<16xi32>, %acc: vector<16xf32>) -> vector<16xf32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8>} {
  %c16 = arith.constant dense<16> : vector<16xi32>
  %high_mask = arith.constant dense<-65536> : vector<16xi32>
  %lo_bits = arith.shli %x, %c16 : vector<16xi32>
  %lo = arith.bitcast %lo_bits : vector<16xi32> to vector<16xf32>
  %hi_bits = arith.andi %x, %high_mask : vector<16xi32>
  %hi = arith.bitcast %hi_bits : vector<16xi32> to vector<16xf32>
  %w0 = arith.extf %even : vector<16xbf16> to vector<16xf32>
  %w1 = arith.extf %odd : vector<16xbf16> to vector<16xf32>
  %p1 = arith.mulf %w1, %hi : vector<16xf32>
  %p0 = arith.mulf %w0, %lo : vector<16xf32>
  %step = arith.addf %p1, %p0 : vector<16xf32>
  %r = arith.addf %acc, %step : vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @other_pairs
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @other_pairs(%even: vector<16xbf16>, %odd: vector<16xbf16>, %x: vector<16xi32>, %y: vector<16xi32>, %acc: vector<16xf32>) -> vector<16xf32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8, dot = vdpbf16ps>} {
  %c16 = arith.constant dense<16> : vector<16xi32>
  %high_mask = arith.constant dense<-65536> : vector<16xi32>
  %lo_bits = arith.shli %x, %c16 : vector<16xi32>
  %lo = arith.bitcast %lo_bits : vector<16xi32> to vector<16xf32>
  %hi_bits = arith.andi %y, %high_mask : vector<16xi32>
  %hi = arith.bitcast %hi_bits : vector<16xi32> to vector<16xf32>
  %w0 = arith.extf %even : vector<16xbf16> to vector<16xf32>
  %w1 = arith.extf %odd : vector<16xbf16> to vector<16xf32>
  %p1 = arith.mulf %w1, %hi : vector<16xf32>
  %p0 = arith.mulf %w0, %lo : vector<16xf32>
  %step = arith.addf %p1, %p0 : vector<16xf32>
  %r = arith.addf %acc, %step : vector<16xf32>
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @same_half
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @same_half(%even: vector<16xbf16>, %odd: vector<16xbf16>, %x: vector<16xi32>, %acc: vector<16xf32>) -> vector<16xf32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 8, dot = vdpbf16ps>} {
  %c16 = arith.constant dense<16> : vector<16xi32>
  %lo_bits = arith.shli %x, %c16 : vector<16xi32>
  %lo = arith.bitcast %lo_bits : vector<16xi32> to vector<16xf32>
  %w0 = arith.extf %even : vector<16xbf16> to vector<16xf32>
  %w1 = arith.extf %odd : vector<16xbf16> to vector<16xf32>
  %p1 = arith.mulf %w1, %lo : vector<16xf32>
  %p0 = arith.mulf %w0, %lo : vector<16xf32>
  %step = arith.addf %p1, %p0 : vector<16xf32>
  %r = arith.addf %acc, %step : vector<16xf32>
  return %r : vector<16xf32>
}
