// RUN: tfmc-opt %s -split-input-file -tfm-cpu-nibble-pair-dot | FileCheck %s

// The lowering's form (tfm-cpu-lower-projections, int8 inputs, vectorised),
// in a kernel whose configuration asks for vpmaddubsw: a
// byte's two nibbles times the two bytes of a 16-bit input pair. The
// nibbles become the bytes of each lane ((t | t << 4) & 0x0F0F), the pair
// is used as it is, and 16 lanes go through vpmaddubsw.

// CHECK-LABEL: func.func @packed_inputs
// CHECK-SAME: (%[[BYTES:.*]]: vector<16xi8>, %[[PAIRS:.*]]: vector<16xi16>, %[[ACC:.*]]: vector<16xi16>)
// CHECK-DAG: %[[FOUR:.*]] = arith.constant dense<4> : vector<16xi16>
// CHECK-DAG: %[[MASK:.*]] = arith.constant dense<3855> : vector<16xi16>
// CHECK: %[[WIDE:.*]] = arith.extui %[[BYTES]]
// CHECK: %[[HIGH:.*]] = arith.shli %[[WIDE]], %[[FOUR]]
// CHECK: %[[BOTH:.*]] = arith.ori %[[WIDE]], %[[HIGH]]
// CHECK: %[[NIBBLES:.*]] = arith.andi %[[BOTH]], %[[MASK]]
// CHECK: %[[A:.*]] = vector.bitcast %[[NIBBLES]] : vector<16xi16> to vector<32xi8>
// CHECK: %[[B:.*]] = vector.bitcast %[[PAIRS]] : vector<16xi16> to vector<32xi8>
// CHECK: %[[SUM:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"(%[[A]], %[[B]]) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// CHECK: %[[R:.*]] = arith.addi %[[ACC]], %[[SUM]]
// CHECK: return %[[R]]
func.func @packed_inputs(%bytes: vector<16xi8>, %pairs: vector<16xi16>, %acc: vector<16xi16>) -> vector<16xi16> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 4, dot = vpmaddubsw>} {
  %c15 = arith.constant dense<15> : vector<16xi16>
  %c4 = arith.constant dense<4> : vector<16xi16>
  %c8 = arith.constant dense<8> : vector<16xi16>
  %wide = arith.extui %bytes : vector<16xi8> to vector<16xi16>
  %low = arith.andi %wide, %c15 : vector<16xi16>
  %high = arith.shrui %wide, %c4 : vector<16xi16>
  %lo8 = arith.trunci %pairs : vector<16xi16> to vector<16xi8>
  %shifted = arith.shrui %pairs, %c8 : vector<16xi16>
  %hi8 = arith.trunci %shifted : vector<16xi16> to vector<16xi8>
  %lo = arith.extsi %lo8 : vector<16xi8> to vector<16xi16>
  %hi = arith.extsi %hi8 : vector<16xi8> to vector<16xi16>
  %p0 = arith.muli %low, %lo : vector<16xi16>
  %p1 = arith.muli %high, %hi : vector<16xi16>
  %sum = arith.addi %p0, %p1 : vector<16xi16>
  %r = arith.addi %acc, %sum : vector<16xi16>
  return %r : vector<16xi16>
}

// -----

// Inputs as two separate i8 vectors, the products in either order and the
// high nibble first: the inputs are paired into 16-bit lanes (lo | hi << 8),
// and 32 lanes take two instructions, 16 lanes each.

// CHECK-LABEL: func.func @separate_inputs
// CHECK-SAME: (%[[BYTES:.*]]: vector<2x16xi8>, %[[X:.*]]: vector<2x16xi8>, %[[Y:.*]]: vector<2x16xi8>)
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant dense<8> : vector<2x16xi16>
// CHECK-DAG: %[[LO:.*]] = arith.extui %[[X]] : vector<2x16xi8> to vector<2x16xi16>
// CHECK-DAG: %[[HI:.*]] = arith.extui %[[Y]] : vector<2x16xi8> to vector<2x16xi16>
// CHECK: %[[HISHIFT:.*]] = arith.shli %[[HI]], %[[EIGHT]]
// CHECK: %[[PAIRS:.*]] = arith.ori %[[LO]], %[[HISHIFT]]
// CHECK: %[[FLAT:.*]] = vector.shape_cast %[[PAIRS]] : vector<2x16xi16> to vector<32xi16>
// CHECK: %[[B:.*]] = vector.bitcast %[[FLAT]] : vector<32xi16> to vector<64xi8>
// CHECK: vector.extract_strided_slice %[[B]] {offsets = [0], sizes = [32], strides = [1]}
// CHECK: llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"
// CHECK: vector.insert_strided_slice {{.*}} {offsets = [0], strides = [1]} : vector<16xi16> into vector<32xi16>
// CHECK: vector.extract_strided_slice %[[B]] {offsets = [32], sizes = [32], strides = [1]}
// CHECK: llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"
// CHECK: %[[ALL:.*]] = vector.insert_strided_slice {{.*}} {offsets = [16], strides = [1]} : vector<16xi16> into vector<32xi16>
// CHECK: %[[R:.*]] = vector.shape_cast %[[ALL]] : vector<32xi16> to vector<2x16xi16>
// CHECK: return %[[R]]
func.func @separate_inputs(%bytes: vector<2x16xi8>, %x: vector<2x16xi8>, %y: vector<2x16xi8>) -> vector<2x16xi16> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 4, dot = vpmaddubsw>} {
  %c15 = arith.constant dense<15> : vector<2x16xi16>
  %c4 = arith.constant dense<4> : vector<2x16xi16>
  %wide = arith.extui %bytes : vector<2x16xi8> to vector<2x16xi16>
  %low = arith.andi %wide, %c15 : vector<2x16xi16>
  %high = arith.shrui %wide, %c4 : vector<2x16xi16>
  %lo = arith.extsi %x : vector<2x16xi8> to vector<2x16xi16>
  %hi = arith.extsi %y : vector<2x16xi8> to vector<2x16xi16>
  %p0 = arith.muli %hi, %high : vector<2x16xi16>
  %p1 = arith.muli %low, %lo : vector<2x16xi16>
  %sum = arith.addi %p0, %p1 : vector<2x16xi16>
  return %sum : vector<2x16xi16>
}

// -----

// Not the form: the same nibble twice, nibbles of two different bytes, and
// lanes that are not whole instructions (8) stay as they are.

// CHECK-LABEL: func.func @not_pairs
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @not_pairs(%bytes: vector<16xi8>, %other: vector<16xi8>, %x: vector<16xi8>, %y: vector<16xi8>, %short: vector<8xi8>, %sx: vector<8xi8>) -> (vector<16xi16>, vector<16xi16>, vector<8xi16>) attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 4, dot = vpmaddubsw>} {
  %c15 = arith.constant dense<15> : vector<16xi16>
  %c4 = arith.constant dense<4> : vector<16xi16>
  %wide = arith.extui %bytes : vector<16xi8> to vector<16xi16>
  %wideOther = arith.extui %other : vector<16xi8> to vector<16xi16>
  %low = arith.andi %wide, %c15 : vector<16xi16>
  %high = arith.shrui %wide, %c4 : vector<16xi16>
  %highOther = arith.shrui %wideOther, %c4 : vector<16xi16>
  %lo = arith.extsi %x : vector<16xi8> to vector<16xi16>
  %hi = arith.extsi %y : vector<16xi8> to vector<16xi16>
  %p0 = arith.muli %low, %lo : vector<16xi16>
  %p1 = arith.muli %low, %hi : vector<16xi16>
  %same = arith.addi %p0, %p1 : vector<16xi16>
  %p2 = arith.muli %highOther, %hi : vector<16xi16>
  %mixed = arith.addi %p0, %p2 : vector<16xi16>
  %s15 = arith.constant dense<15> : vector<8xi16>
  %s4 = arith.constant dense<4> : vector<8xi16>
  %swide = arith.extui %short : vector<8xi8> to vector<8xi16>
  %slow = arith.andi %swide, %s15 : vector<8xi16>
  %shigh = arith.shrui %swide, %s4 : vector<8xi16>
  %sin = arith.extsi %sx : vector<8xi8> to vector<8xi16>
  %sp0 = arith.muli %slow, %sin : vector<8xi16>
  %sp1 = arith.muli %shigh, %sin : vector<8xi16>
  %narrow = arith.addi %sp0, %sp1 : vector<8xi16>
  return %same, %mixed, %narrow : vector<16xi16>, vector<16xi16>, vector<8xi16>
}

// -----

// Without AVX2 the configuration asks for no instruction
// (tfm-cpu-select-kernel-config): the portable 16-bit arithmetic stays.

// CHECK-LABEL: func.func @no_avx2
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.muli
// CHECK: arith.muli
// CHECK: return
func.func @no_avx2(%bytes: vector<16xi8>, %x: vector<16xi8>, %y: vector<16xi8>) -> vector<16xi16> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 2>} {
  %c15 = arith.constant dense<15> : vector<16xi16>
  %c4 = arith.constant dense<4> : vector<16xi16>
  %wide = arith.extui %bytes : vector<16xi8> to vector<16xi16>
  %low = arith.andi %wide, %c15 : vector<16xi16>
  %high = arith.shrui %wide, %c4 : vector<16xi16>
  %lo = arith.extsi %x : vector<16xi8> to vector<16xi16>
  %hi = arith.extsi %y : vector<16xi8> to vector<16xi16>
  %p0 = arith.muli %low, %lo : vector<16xi16>
  %p1 = arith.muli %high, %hi : vector<16xi16>
  %sum = arith.addi %p0, %p1 : vector<16xi16>
  return %sum : vector<16xi16>
}
