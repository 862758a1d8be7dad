// RUN: tfmc-opt %s -split-input-file -tfm-cpu-byte-quad-dot | FileCheck %s

// The lowering's form (q8_0x4 panels, vectorised): per 32-bit lane, the
// four bytes of the quants with their top bits flipped (q + 128, unsigned)
// times the four bytes of the inputs (signed), summed into the
// accumulator. In a kernel whose configuration asks for vpdpbusd16 (AVX-512
// VNNI), 16 lanes go through one vpdpbusd; the flip becomes one xor with
// 0x80808080 (-2139062144) per lane.

// CHECK-LABEL: func.func @quad
// CHECK-SAME: (%[[W:.*]]: vector<16xi32>, %[[X:.*]]: vector<16xi32>, %[[ACC:.*]]: vector<16xi32>)
// CHECK: %[[FLIP:.*]] = arith.constant dense<-2139062144> : vector<16xi32>
// CHECK: %[[U:.*]] = arith.xori %[[W]], %[[FLIP]] : vector<16xi32>
// CHECK: %[[UB:.*]] = vector.bitcast %[[U]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[XB:.*]] = vector.bitcast %[[X]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[UB]], %[[XB]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: return %[[R]]
func.func @quad(%w: vector<16xi32>, %x: vector<16xi32>, %acc: vector<16xi32>) -> vector<16xi32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>} {
  %flip = arith.constant dense<-128> : vector<16xi8>
  %c8 = arith.constant dense<8> : vector<16xi32>
  %c16 = arith.constant dense<16> : vector<16xi32>
  %c24 = arith.constant dense<24> : vector<16xi32>
  %w0 = arith.trunci %w : vector<16xi32> to vector<16xi8>
  %x0 = arith.trunci %x : vector<16xi32> to vector<16xi8>
  %ws1 = arith.shrui %w, %c8 : vector<16xi32>
  %xs1 = arith.shrui %x, %c8 : vector<16xi32>
  %w1 = arith.trunci %ws1 : vector<16xi32> to vector<16xi8>
  %x1 = arith.trunci %xs1 : vector<16xi32> to vector<16xi8>
  %ws2 = arith.shrui %w, %c16 : vector<16xi32>
  %xs2 = arith.shrui %x, %c16 : vector<16xi32>
  %w2 = arith.trunci %ws2 : vector<16xi32> to vector<16xi8>
  %x2 = arith.trunci %xs2 : vector<16xi32> to vector<16xi8>
  %ws3 = arith.shrui %w, %c24 : vector<16xi32>
  %xs3 = arith.shrui %x, %c24 : vector<16xi32>
  %w3 = arith.trunci %ws3 : vector<16xi32> to vector<16xi8>
  %x3 = arith.trunci %xs3 : vector<16xi32> to vector<16xi8>
  %f0 = arith.xori %w0, %flip : vector<16xi8>
  %f1 = arith.xori %w1, %flip : vector<16xi8>
  %f2 = arith.xori %w2, %flip : vector<16xi8>
  %f3 = arith.xori %w3, %flip : vector<16xi8>
  %u0 = arith.extui %f0 : vector<16xi8> to vector<16xi32>
  %u1 = arith.extui %f1 : vector<16xi8> to vector<16xi32>
  %u2 = arith.extui %f2 : vector<16xi8> to vector<16xi32>
  %u3 = arith.extui %f3 : vector<16xi8> to vector<16xi32>
  %s0 = arith.extsi %x0 : vector<16xi8> to vector<16xi32>
  %s1 = arith.extsi %x1 : vector<16xi8> to vector<16xi32>
  %s2 = arith.extsi %x2 : vector<16xi8> to vector<16xi32>
  %s3 = arith.extsi %x3 : vector<16xi8> to vector<16xi32>
  %p0 = arith.muli %u0, %s0 : vector<16xi32>
  %p1 = arith.muli %u1, %s1 : vector<16xi32>
  %p2 = arith.muli %u2, %s2 : vector<16xi32>
  %p3 = arith.muli %u3, %s3 : vector<16xi32>
  %a = arith.addi %p0, %p1 : vector<16xi32>
  %b = arith.addi %a, %p2 : vector<16xi32>
  %c = arith.addi %b, %p3 : vector<16xi32>
  %r = arith.addi %acc, %c : vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// vpdpbusd8 (AVX-VNNI, no AVX-512): 8 lanes an instruction, so a 1x16 register tile
// takes two, each on its slice; the sum of products may come first, the
// products in any order with the operands swapped, and the sum reshaped to
// the accumulator's shape (a tile of rows drops unit dimensions).

// CHECK-LABEL: func.func @avx_vnni
// CHECK-SAME: (%[[W:.*]]: vector<1x1x16xi32>, %[[X:.*]]: vector<1x1x16xi32>, %[[ACC:.*]]: vector<1x16xi32>)
// CHECK: %[[WF:.*]] = vector.shape_cast %[[W]] : vector<1x1x16xi32> to vector<16xi32>
// CHECK: %[[U:.*]] = arith.xori %[[WF]]
// CHECK: %[[XF:.*]] = vector.shape_cast %[[X]] : vector<1x1x16xi32> to vector<16xi32>
// CHECK: %[[AF:.*]] = vector.shape_cast %[[ACC]] : vector<1x16xi32> to vector<16xi32>
// CHECK: %[[A0:.*]] = vector.extract_strided_slice %[[AF]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: %[[U0:.*]] = vector.extract_strided_slice %[[U]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: vector.bitcast %[[U0]] : vector<8xi32> to vector<32xi8>
// CHECK: %[[X0:.*]] = vector.extract_strided_slice %[[XF]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: vector.bitcast %[[X0]] : vector<8xi32> to vector<32xi8>
// CHECK: %[[R0:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"(%[[A0]], {{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// CHECK: vector.insert_strided_slice %[[R0]], %[[AF]] {offsets = [0], strides = [1]}
// CHECK: vector.extract_strided_slice %[[AF]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"
// CHECK: vector.insert_strided_slice {{.*}} {offsets = [8], strides = [1]}
// CHECK: %[[R:.*]] = vector.shape_cast {{.*}} : vector<16xi32> to vector<1x16xi32>
// CHECK: return %[[R]]
func.func @avx_vnni(%w: vector<1x1x16xi32>, %x: vector<1x1x16xi32>, %acc: vector<1x16xi32>) -> vector<1x16xi32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 4, dot = vpdpbusd8>} {
  %flip = arith.constant dense<-128> : vector<1x1x16xi8>
  %c8 = arith.constant dense<8> : vector<1x1x16xi32>
  %c16 = arith.constant dense<16> : vector<1x1x16xi32>
  %c24 = arith.constant dense<24> : vector<1x1x16xi32>
  %w0 = arith.trunci %w : vector<1x1x16xi32> to vector<1x1x16xi8>
  %x0 = arith.trunci %x : vector<1x1x16xi32> to vector<1x1x16xi8>
  %ws1 = arith.shrui %w, %c8 : vector<1x1x16xi32>
  %xs1 = arith.shrui %x, %c8 : vector<1x1x16xi32>
  %w1 = arith.trunci %ws1 : vector<1x1x16xi32> to vector<1x1x16xi8>
  %x1 = arith.trunci %xs1 : vector<1x1x16xi32> to vector<1x1x16xi8>
  %ws2 = arith.shrui %w, %c16 : vector<1x1x16xi32>
  %xs2 = arith.shrui %x, %c16 : vector<1x1x16xi32>
  %w2 = arith.trunci %ws2 : vector<1x1x16xi32> to vector<1x1x16xi8>
  %x2 = arith.trunci %xs2 : vector<1x1x16xi32> to vector<1x1x16xi8>
  %ws3 = arith.shrui %w, %c24 : vector<1x1x16xi32>
  %xs3 = arith.shrui %x, %c24 : vector<1x1x16xi32>
  %w3 = arith.trunci %ws3 : vector<1x1x16xi32> to vector<1x1x16xi8>
  %x3 = arith.trunci %xs3 : vector<1x1x16xi32> to vector<1x1x16xi8>
  %f0 = arith.xori %w0, %flip : vector<1x1x16xi8>
  %f1 = arith.xori %w1, %flip : vector<1x1x16xi8>
  %f2 = arith.xori %w2, %flip : vector<1x1x16xi8>
  %f3 = arith.xori %w3, %flip : vector<1x1x16xi8>
  %u0 = arith.extui %f0 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %u1 = arith.extui %f1 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %u2 = arith.extui %f2 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %u3 = arith.extui %f3 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %s0 = arith.extsi %x0 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %s1 = arith.extsi %x1 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %s2 = arith.extsi %x2 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %s3 = arith.extsi %x3 : vector<1x1x16xi8> to vector<1x1x16xi32>
  %p0 = arith.muli %u0, %s0 : vector<1x1x16xi32>
  %p1 = arith.muli %s1, %u1 : vector<1x1x16xi32>
  %p2 = arith.muli %u2, %s2 : vector<1x1x16xi32>
  %p3 = arith.muli %s3, %u3 : vector<1x1x16xi32>
  %a = arith.addi %p3, %p1 : vector<1x1x16xi32>
  %b = arith.addi %p2, %p0 : vector<1x1x16xi32>
  %c = arith.addi %a, %b : vector<1x1x16xi32>
  %cs = vector.shape_cast %c : vector<1x1x16xi32> to vector<1x16xi32>
  %r = arith.addi %cs, %acc : vector<1x16xi32>
  return %r : vector<1x16xi32>
}

// -----

// Forms that are not one lane's four biased byte products stay as they
// are: a byte used twice (no byte 3), the quants' bytes unflipped, and
// quants and inputs of different lanes.

// CHECK-LABEL: func.func @not_quads
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @not_quads(%w: vector<16xi32>, %x: vector<16xi32>, %y: vector<16xi32>, %acc: vector<16xi32>) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>) attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>} {
  %flip = arith.constant dense<-128> : vector<16xi8>
  %c8 = arith.constant dense<8> : vector<16xi32>
  %c16 = arith.constant dense<16> : vector<16xi32>
  %c24 = arith.constant dense<24> : vector<16xi32>
  %w0 = arith.trunci %w : vector<16xi32> to vector<16xi8>
  %x0 = arith.trunci %x : vector<16xi32> to vector<16xi8>
  %y0 = arith.trunci %y : vector<16xi32> to vector<16xi8>
  %ws1 = arith.shrui %w, %c8 : vector<16xi32>
  %xs1 = arith.shrui %x, %c8 : vector<16xi32>
  %w1 = arith.trunci %ws1 : vector<16xi32> to vector<16xi8>
  %x1 = arith.trunci %xs1 : vector<16xi32> to vector<16xi8>
  %ws2 = arith.shrui %w, %c16 : vector<16xi32>
  %xs2 = arith.shrui %x, %c16 : vector<16xi32>
  %w2 = arith.trunci %ws2 : vector<16xi32> to vector<16xi8>
  %x2 = arith.trunci %xs2 : vector<16xi32> to vector<16xi8>
  %ws3 = arith.shrui %w, %c24 : vector<16xi32>
  %xs3 = arith.shrui %x, %c24 : vector<16xi32>
  %w3 = arith.trunci %ws3 : vector<16xi32> to vector<16xi8>
  %x3 = arith.trunci %xs3 : vector<16xi32> to vector<16xi8>
  %f0 = arith.xori %w0, %flip : vector<16xi8>
  %f1 = arith.xori %w1, %flip : vector<16xi8>
  %f2 = arith.xori %w2, %flip : vector<16xi8>
  %f3 = arith.xori %w3, %flip : vector<16xi8>
  %u0 = arith.extui %f0 : vector<16xi8> to vector<16xi32>
  %u1 = arith.extui %f1 : vector<16xi8> to vector<16xi32>
  %u2 = arith.extui %f2 : vector<16xi8> to vector<16xi32>
  %u3 = arith.extui %f3 : vector<16xi8> to vector<16xi32>
  %raw3 = arith.extui %w3 : vector<16xi8> to vector<16xi32>
  %s0 = arith.extsi %x0 : vector<16xi8> to vector<16xi32>
  %t0 = arith.extsi %y0 : vector<16xi8> to vector<16xi32>
  %s1 = arith.extsi %x1 : vector<16xi8> to vector<16xi32>
  %s2 = arith.extsi %x2 : vector<16xi8> to vector<16xi32>
  %s3 = arith.extsi %x3 : vector<16xi8> to vector<16xi32>
  %p0 = arith.muli %u0, %s0 : vector<16xi32>
  %q0 = arith.muli %u0, %t0 : vector<16xi32>
  %p1 = arith.muli %u1, %s1 : vector<16xi32>
  %p2 = arith.muli %u2, %s2 : vector<16xi32>
  %p3 = arith.muli %u3, %s3 : vector<16xi32>
  %r3 = arith.muli %raw3, %s3 : vector<16xi32>
  // Byte 2 twice, no byte 3.
  %a = arith.addi %p0, %p1 : vector<16xi32>
  %b = arith.addi %a, %p2 : vector<16xi32>
  %twice = arith.addi %b, %p2 : vector<16xi32>
  %r1 = arith.addi %acc, %twice : vector<16xi32>
  // Byte 3 of the quants not flipped.
  %unflipped = arith.addi %b, %r3 : vector<16xi32>
  %r2 = arith.addi %acc, %unflipped : vector<16xi32>
  // Byte 0 of other inputs.
  %c = arith.addi %q0, %p1 : vector<16xi32>
  %d = arith.addi %c, %p2 : vector<16xi32>
  %mixed = arith.addi %d, %p3 : vector<16xi32>
  %r3s = arith.addi %acc, %mixed : vector<16xi32>
  return %r1, %r2, %r3s : vector<16xi32>, vector<16xi32>, vector<16xi32>
}

// -----

// The q4_0x4 form: the quads' low nibbles (byte & 15) times the inputs of
// one half of the block plus their high nibbles (byte >> 4) times those of
// the other half, as one sum added to the accumulator (reshaped: a
// register tile of 8 rows). Two vpdpbusd per 16 lanes, chained: on the
// lanes masked with 0x0F0F0F0F (252645135), then shifted right by 4 and
// masked.

// CHECK-LABEL: func.func @nibble_quads
// CHECK-SAME: (%[[W:.*]]: vector<8x1x1x16xi32>, %[[LO:.*]]: vector<8x1x1x16xi32>, %[[HI:.*]]: vector<8x1x1x16xi32>, %[[ACC:.*]]: vector<8x1x16xi32>)
// CHECK-DAG: %[[MASK:.*]] = arith.constant dense<252645135> : vector<128xi32>
// CHECK-DAG: %[[FOUR:.*]] = arith.constant dense<4> : vector<128xi32>
// CHECK: %[[WF:.*]] = vector.shape_cast %[[W]] : vector<8x1x1x16xi32> to vector<128xi32>
// CHECK: %[[LOW:.*]] = arith.andi %[[WF]], %[[MASK]] : vector<128xi32>
// CHECK: %[[LOF:.*]] = vector.shape_cast %[[LO]] : vector<8x1x1x16xi32> to vector<128xi32>
// CHECK: %[[WF2:.*]] = vector.shape_cast %[[W]] : vector<8x1x1x16xi32> to vector<128xi32>
// CHECK: %[[SHIFTED:.*]] = arith.shrui %[[WF2]], %[[FOUR]] : vector<128xi32>
// CHECK: %[[HIGH:.*]] = arith.andi %[[SHIFTED]], %[[MASK]] : vector<128xi32>
// CHECK: %[[HIF:.*]] = vector.shape_cast %[[HI]] : vector<8x1x1x16xi32> to vector<128xi32>
// CHECK: %[[AF:.*]] = vector.shape_cast %[[ACC]] : vector<8x1x16xi32> to vector<128xi32>
// CHECK: %[[A0:.*]] = vector.extract_strided_slice %[[AF]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[L0:.*]] = vector.extract_strided_slice %[[LOW]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[LB:.*]] = vector.bitcast %[[L0]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[X0:.*]] = vector.extract_strided_slice %[[LOF]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[XB:.*]] = vector.bitcast %[[X0]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[S0:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[A0]], %[[LB]], %[[XB]])
// CHECK: %[[H0:.*]] = vector.extract_strided_slice %[[HIGH]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[HB:.*]] = vector.bitcast %[[H0]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[Y0:.*]] = vector.extract_strided_slice %[[HIF]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[YB:.*]] = vector.bitcast %[[Y0]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[S1:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[S0]], %[[HB]], %[[YB]])
// CHECK: vector.insert_strided_slice %[[S1]], %[[AF]] {offsets = [0], strides = [1]}
// CHECK-COUNT-14: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.shape_cast {{.*}} : vector<128xi32> to vector<8x1x16xi32>
func.func @nibble_quads(%w: vector<8x1x1x16xi32>, %lo: vector<8x1x1x16xi32>, %hi: vector<8x1x1x16xi32>, %acc: vector<8x1x16xi32>) -> vector<8x1x16xi32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>} {
  %c15 = arith.constant dense<15> : vector<8x1x1x16xi8>
  %c4 = arith.constant dense<4> : vector<8x1x1x16xi8>
  %c8 = arith.constant dense<8> : vector<8x1x1x16xi32>
  %c16 = arith.constant dense<16> : vector<8x1x1x16xi32>
  %c24 = arith.constant dense<24> : vector<8x1x1x16xi32>
  %w0 = arith.trunci %w : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %l0 = arith.trunci %lo : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %h0 = arith.trunci %hi : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n0 = arith.andi %w0, %c15 : vector<8x1x1x16xi8>
  %m0 = arith.shrui %w0, %c4 : vector<8x1x1x16xi8>
  %un0 = arith.extui %n0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um0 = arith.extui %m0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl0 = arith.extsi %l0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh0 = arith.extsi %h0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl0 = arith.muli %un0, %sl0 : vector<8x1x1x16xi32>
  %ph0 = arith.muli %um0, %sh0 : vector<8x1x1x16xi32>
  %ws1 = arith.shrui %w, %c8 : vector<8x1x1x16xi32>
  %w1 = arith.trunci %ws1 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %ls1 = arith.shrui %lo, %c8 : vector<8x1x1x16xi32>
  %l1 = arith.trunci %ls1 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %hs1 = arith.shrui %hi, %c8 : vector<8x1x1x16xi32>
  %h1 = arith.trunci %hs1 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n1 = arith.andi %w1, %c15 : vector<8x1x1x16xi8>
  %m1 = arith.shrui %w1, %c4 : vector<8x1x1x16xi8>
  %un1 = arith.extui %n1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um1 = arith.extui %m1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl1 = arith.extsi %l1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh1 = arith.extsi %h1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl1 = arith.muli %un1, %sl1 : vector<8x1x1x16xi32>
  %ph1 = arith.muli %um1, %sh1 : vector<8x1x1x16xi32>
  %ws2 = arith.shrui %w, %c16 : vector<8x1x1x16xi32>
  %w2 = arith.trunci %ws2 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %ls2 = arith.shrui %lo, %c16 : vector<8x1x1x16xi32>
  %l2 = arith.trunci %ls2 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %hs2 = arith.shrui %hi, %c16 : vector<8x1x1x16xi32>
  %h2 = arith.trunci %hs2 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n2 = arith.andi %w2, %c15 : vector<8x1x1x16xi8>
  %m2 = arith.shrui %w2, %c4 : vector<8x1x1x16xi8>
  %un2 = arith.extui %n2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um2 = arith.extui %m2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl2 = arith.extsi %l2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh2 = arith.extsi %h2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl2 = arith.muli %un2, %sl2 : vector<8x1x1x16xi32>
  %ph2 = arith.muli %um2, %sh2 : vector<8x1x1x16xi32>
  %ws3 = arith.shrui %w, %c24 : vector<8x1x1x16xi32>
  %w3 = arith.trunci %ws3 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %ls3 = arith.shrui %lo, %c24 : vector<8x1x1x16xi32>
  %l3 = arith.trunci %ls3 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %hs3 = arith.shrui %hi, %c24 : vector<8x1x1x16xi32>
  %h3 = arith.trunci %hs3 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n3 = arith.andi %w3, %c15 : vector<8x1x1x16xi8>
  %m3 = arith.shrui %w3, %c4 : vector<8x1x1x16xi8>
  %un3 = arith.extui %n3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um3 = arith.extui %m3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl3 = arith.extsi %l3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh3 = arith.extsi %h3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl3 = arith.muli %un3, %sl3 : vector<8x1x1x16xi32>
  %ph3 = arith.muli %um3, %sh3 : vector<8x1x1x16xi32>
  %a = arith.addi %pl0, %pl1 : vector<8x1x1x16xi32>
  %b = arith.addi %a, %pl2 : vector<8x1x1x16xi32>
  %lows = arith.addi %b, %pl3 : vector<8x1x1x16xi32>
  %c = arith.addi %ph0, %ph1 : vector<8x1x1x16xi32>
  %d = arith.addi %c, %ph2 : vector<8x1x1x16xi32>
  %highs = arith.addi %d, %ph3 : vector<8x1x1x16xi32>
  %sum = arith.addi %lows, %highs : vector<8x1x1x16xi32>
  %sums = vector.shape_cast %sum : vector<8x1x1x16xi32> to vector<8x1x16xi32>
  %r = arith.addi %acc, %sums : vector<8x1x16xi32>
  return %r : vector<8x1x16xi32>
}

// -----

// Low and high nibbles of one quad sum are not one lane's four unsigned
// bytes: it stays as it is.

// CHECK-LABEL: func.func @mixed_nibbles
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @mixed_nibbles(%w: vector<8x1x1x16xi32>, %lo: vector<8x1x1x16xi32>, %hi: vector<8x1x1x16xi32>, %acc: vector<8x1x1x16xi32>) -> vector<8x1x1x16xi32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16>} {
  %c15 = arith.constant dense<15> : vector<8x1x1x16xi8>
  %c4 = arith.constant dense<4> : vector<8x1x1x16xi8>
  %c8 = arith.constant dense<8> : vector<8x1x1x16xi32>
  %c16 = arith.constant dense<16> : vector<8x1x1x16xi32>
  %c24 = arith.constant dense<24> : vector<8x1x1x16xi32>
  %w0 = arith.trunci %w : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %l0 = arith.trunci %lo : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %h0 = arith.trunci %hi : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n0 = arith.andi %w0, %c15 : vector<8x1x1x16xi8>
  %m0 = arith.shrui %w0, %c4 : vector<8x1x1x16xi8>
  %un0 = arith.extui %n0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um0 = arith.extui %m0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl0 = arith.extsi %l0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh0 = arith.extsi %h0 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl0 = arith.muli %un0, %sl0 : vector<8x1x1x16xi32>
  %ph0 = arith.muli %um0, %sh0 : vector<8x1x1x16xi32>
  %ws1 = arith.shrui %w, %c8 : vector<8x1x1x16xi32>
  %w1 = arith.trunci %ws1 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %ls1 = arith.shrui %lo, %c8 : vector<8x1x1x16xi32>
  %l1 = arith.trunci %ls1 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %hs1 = arith.shrui %hi, %c8 : vector<8x1x1x16xi32>
  %h1 = arith.trunci %hs1 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n1 = arith.andi %w1, %c15 : vector<8x1x1x16xi8>
  %m1 = arith.shrui %w1, %c4 : vector<8x1x1x16xi8>
  %un1 = arith.extui %n1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um1 = arith.extui %m1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl1 = arith.extsi %l1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh1 = arith.extsi %h1 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl1 = arith.muli %un1, %sl1 : vector<8x1x1x16xi32>
  %ph1 = arith.muli %um1, %sh1 : vector<8x1x1x16xi32>
  %ws2 = arith.shrui %w, %c16 : vector<8x1x1x16xi32>
  %w2 = arith.trunci %ws2 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %ls2 = arith.shrui %lo, %c16 : vector<8x1x1x16xi32>
  %l2 = arith.trunci %ls2 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %hs2 = arith.shrui %hi, %c16 : vector<8x1x1x16xi32>
  %h2 = arith.trunci %hs2 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n2 = arith.andi %w2, %c15 : vector<8x1x1x16xi8>
  %m2 = arith.shrui %w2, %c4 : vector<8x1x1x16xi8>
  %un2 = arith.extui %n2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um2 = arith.extui %m2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl2 = arith.extsi %l2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh2 = arith.extsi %h2 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl2 = arith.muli %un2, %sl2 : vector<8x1x1x16xi32>
  %ph2 = arith.muli %um2, %sh2 : vector<8x1x1x16xi32>
  %ws3 = arith.shrui %w, %c24 : vector<8x1x1x16xi32>
  %w3 = arith.trunci %ws3 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %ls3 = arith.shrui %lo, %c24 : vector<8x1x1x16xi32>
  %l3 = arith.trunci %ls3 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %hs3 = arith.shrui %hi, %c24 : vector<8x1x1x16xi32>
  %h3 = arith.trunci %hs3 : vector<8x1x1x16xi32> to vector<8x1x1x16xi8>
  %n3 = arith.andi %w3, %c15 : vector<8x1x1x16xi8>
  %m3 = arith.shrui %w3, %c4 : vector<8x1x1x16xi8>
  %un3 = arith.extui %n3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %um3 = arith.extui %m3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sl3 = arith.extsi %l3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %sh3 = arith.extsi %h3 : vector<8x1x1x16xi8> to vector<8x1x1x16xi32>
  %pl3 = arith.muli %un3, %sl3 : vector<8x1x1x16xi32>
  %ph3 = arith.muli %um3, %sh3 : vector<8x1x1x16xi32>
  %ml3 = arith.muli %um3, %sl3 : vector<8x1x1x16xi32>
  %a = arith.addi %pl0, %pl1 : vector<8x1x1x16xi32>
  %b = arith.addi %a, %pl2 : vector<8x1x1x16xi32>
  %mixed = arith.addi %b, %ml3 : vector<8x1x1x16xi32>
  %r = arith.addi %acc, %mixed : vector<8x1x1x16xi32>
  return %r : vector<8x1x1x16xi32>
}

// -----

// A configuration without a dot instruction (tfm-cpu-select-kernel-config's
// choice without VNNI: AVX2 only, or AVX-512 without it) keeps the form
// portable.

// CHECK-LABEL: func.func @no_vnni
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @no_vnni(%w: vector<16xi32>, %x: vector<16xi32>, %acc: vector<16xi32>) -> vector<16xi32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8>} {
  %flip = arith.constant dense<-128> : vector<16xi8>
  %c8 = arith.constant dense<8> : vector<16xi32>
  %c16 = arith.constant dense<16> : vector<16xi32>
  %c24 = arith.constant dense<24> : vector<16xi32>
  %w0 = arith.trunci %w : vector<16xi32> to vector<16xi8>
  %x0 = arith.trunci %x : vector<16xi32> to vector<16xi8>
  %ws1 = arith.shrui %w, %c8 : vector<16xi32>
  %xs1 = arith.shrui %x, %c8 : vector<16xi32>
  %w1 = arith.trunci %ws1 : vector<16xi32> to vector<16xi8>
  %x1 = arith.trunci %xs1 : vector<16xi32> to vector<16xi8>
  %ws2 = arith.shrui %w, %c16 : vector<16xi32>
  %xs2 = arith.shrui %x, %c16 : vector<16xi32>
  %w2 = arith.trunci %ws2 : vector<16xi32> to vector<16xi8>
  %x2 = arith.trunci %xs2 : vector<16xi32> to vector<16xi8>
  %ws3 = arith.shrui %w, %c24 : vector<16xi32>
  %xs3 = arith.shrui %x, %c24 : vector<16xi32>
  %w3 = arith.trunci %ws3 : vector<16xi32> to vector<16xi8>
  %x3 = arith.trunci %xs3 : vector<16xi32> to vector<16xi8>
  %f0 = arith.xori %w0, %flip : vector<16xi8>
  %f1 = arith.xori %w1, %flip : vector<16xi8>
  %f2 = arith.xori %w2, %flip : vector<16xi8>
  %f3 = arith.xori %w3, %flip : vector<16xi8>
  %u0 = arith.extui %f0 : vector<16xi8> to vector<16xi32>
  %u1 = arith.extui %f1 : vector<16xi8> to vector<16xi32>
  %u2 = arith.extui %f2 : vector<16xi8> to vector<16xi32>
  %u3 = arith.extui %f3 : vector<16xi8> to vector<16xi32>
  %s0 = arith.extsi %x0 : vector<16xi8> to vector<16xi32>
  %s1 = arith.extsi %x1 : vector<16xi8> to vector<16xi32>
  %s2 = arith.extsi %x2 : vector<16xi8> to vector<16xi32>
  %s3 = arith.extsi %x3 : vector<16xi8> to vector<16xi32>
  %p0 = arith.muli %u0, %s0 : vector<16xi32>
  %p1 = arith.muli %u1, %s1 : vector<16xi32>
  %p2 = arith.muli %u2, %s2 : vector<16xi32>
  %p3 = arith.muli %u3, %s3 : vector<16xi32>
  %a = arith.addi %p0, %p1 : vector<16xi32>
  %b = arith.addi %a, %p2 : vector<16xi32>
  %c = arith.addi %b, %p3 : vector<16xi32>
  %r = arith.addi %acc, %c : vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// kquantx4's quads hold their quants biased to unsigned bytes: the products
// take each byte of the weight lane as it is (zero-extended), and the lanes
// go to vpdpbusd untransformed.

// CHECK-LABEL: func.func @as_stored
// CHECK-SAME: (%[[W:.*]]: vector<16xi32>, %[[X:.*]]: vector<16xi32>, %[[ACC:.*]]: vector<16xi32>)
// CHECK-NOT: arith.xori
// CHECK: %[[WB:.*]] = vector.bitcast %[[W]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[XB:.*]] = vector.bitcast %[[X]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[WB]], %[[XB]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: return %[[R]]
func.func @as_stored(%w: vector<16xi32>, %x: vector<16xi32>, %acc: vector<16xi32>) -> vector<16xi32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, dot = vpdpbusd16>} {
  %c8 = arith.constant dense<8> : vector<16xi32>
  %c16 = arith.constant dense<16> : vector<16xi32>
  %c24 = arith.constant dense<24> : vector<16xi32>
  %w0 = arith.trunci %w : vector<16xi32> to vector<16xi8>
  %x0 = arith.trunci %x : vector<16xi32> to vector<16xi8>
  %ws1 = arith.shrui %w, %c8 : vector<16xi32>
  %xs1 = arith.shrui %x, %c8 : vector<16xi32>
  %w1 = arith.trunci %ws1 : vector<16xi32> to vector<16xi8>
  %x1 = arith.trunci %xs1 : vector<16xi32> to vector<16xi8>
  %ws2 = arith.shrui %w, %c16 : vector<16xi32>
  %xs2 = arith.shrui %x, %c16 : vector<16xi32>
  %w2 = arith.trunci %ws2 : vector<16xi32> to vector<16xi8>
  %x2 = arith.trunci %xs2 : vector<16xi32> to vector<16xi8>
  %ws3 = arith.shrui %w, %c24 : vector<16xi32>
  %xs3 = arith.shrui %x, %c24 : vector<16xi32>
  %w3 = arith.trunci %ws3 : vector<16xi32> to vector<16xi8>
  %x3 = arith.trunci %xs3 : vector<16xi32> to vector<16xi8>
  %u0 = arith.extui %w0 : vector<16xi8> to vector<16xi32>
  %u1 = arith.extui %w1 : vector<16xi8> to vector<16xi32>
  %u2 = arith.extui %w2 : vector<16xi8> to vector<16xi32>
  %u3 = arith.extui %w3 : vector<16xi8> to vector<16xi32>
  %s0 = arith.extsi %x0 : vector<16xi8> to vector<16xi32>
  %s1 = arith.extsi %x1 : vector<16xi8> to vector<16xi32>
  %s2 = arith.extsi %x2 : vector<16xi8> to vector<16xi32>
  %s3 = arith.extsi %x3 : vector<16xi8> to vector<16xi32>
  %p0 = arith.muli %u0, %s0 : vector<16xi32>
  %p1 = arith.muli %u1, %s1 : vector<16xi32>
  %p2 = arith.muli %u2, %s2 : vector<16xi32>
  %p3 = arith.muli %u3, %s3 : vector<16xi32>
  %a = arith.addi %p0, %p1 : vector<16xi32>
  %b = arith.addi %a, %p2 : vector<16xi32>
  %c = arith.addi %b, %p3 : vector<16xi32>
  %r = arith.addi %acc, %c : vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// With AVX2 and no VNNI (dot = vpmaddubsw), the k-quants' quads become
// vpmaddubsw (unsigned weight bytes times signed input bytes, adjacent
// pairs summed into 16 bits: no saturation for bytes below 64) and
// vpmaddwd with ones (each lane's two pairs summed into 32 bits), added to
// the accumulator: 8 lanes an instruction.

// CHECK-LABEL: func.func @avx2
// CHECK-SAME: (%[[W:.*]]: vector<8xi32>, %[[X:.*]]: vector<8xi32>, %[[ACC:.*]]: vector<8xi32>)
// CHECK: %[[ONES:.*]] = arith.constant dense<1> : vector<16xi16>
// CHECK: %[[WB:.*]] = vector.bitcast %[[W]] : vector<8xi32> to vector<32xi8>
// CHECK: %[[XB:.*]] = vector.bitcast %[[X]] : vector<8xi32> to vector<32xi8>
// CHECK: %[[PAIRS:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"(%[[WB]], %[[XB]]) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// CHECK: %[[QUADS:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%[[PAIRS]], %[[ONES]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: %[[R:.*]] = arith.addi %[[ACC]], %[[QUADS]] : vector<8xi32>
// CHECK: return %[[R]]
func.func @avx2(%w: vector<8xi32>, %x: vector<8xi32>, %acc: vector<8xi32>) -> vector<8xi32> attributes {tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, dot = vpmaddubsw>} {
  %c8 = arith.constant dense<8> : vector<8xi32>
  %c16 = arith.constant dense<16> : vector<8xi32>
  %c24 = arith.constant dense<24> : vector<8xi32>
  %w0 = arith.trunci %w : vector<8xi32> to vector<8xi8>
  %x0 = arith.trunci %x : vector<8xi32> to vector<8xi8>
  %ws1 = arith.shrui %w, %c8 : vector<8xi32>
  %xs1 = arith.shrui %x, %c8 : vector<8xi32>
  %w1 = arith.trunci %ws1 : vector<8xi32> to vector<8xi8>
  %x1 = arith.trunci %xs1 : vector<8xi32> to vector<8xi8>
  %ws2 = arith.shrui %w, %c16 : vector<8xi32>
  %xs2 = arith.shrui %x, %c16 : vector<8xi32>
  %w2 = arith.trunci %ws2 : vector<8xi32> to vector<8xi8>
  %x2 = arith.trunci %xs2 : vector<8xi32> to vector<8xi8>
  %ws3 = arith.shrui %w, %c24 : vector<8xi32>
  %xs3 = arith.shrui %x, %c24 : vector<8xi32>
  %w3 = arith.trunci %ws3 : vector<8xi32> to vector<8xi8>
  %x3 = arith.trunci %xs3 : vector<8xi32> to vector<8xi8>
  %u0 = arith.extui %w0 : vector<8xi8> to vector<8xi32>
  %u1 = arith.extui %w1 : vector<8xi8> to vector<8xi32>
  %u2 = arith.extui %w2 : vector<8xi8> to vector<8xi32>
  %u3 = arith.extui %w3 : vector<8xi8> to vector<8xi32>
  %s0 = arith.extsi %x0 : vector<8xi8> to vector<8xi32>
  %s1 = arith.extsi %x1 : vector<8xi8> to vector<8xi32>
  %s2 = arith.extsi %x2 : vector<8xi8> to vector<8xi32>
  %s3 = arith.extsi %x3 : vector<8xi8> to vector<8xi32>
  %p0 = arith.muli %u0, %s0 : vector<8xi32>
  %p1 = arith.muli %u1, %s1 : vector<8xi32>
  %p2 = arith.muli %u2, %s2 : vector<8xi32>
  %p3 = arith.muli %u3, %s3 : vector<8xi32>
  %a = arith.addi %p0, %p1 : vector<8xi32>
  %b = arith.addi %a, %p2 : vector<8xi32>
  %c = arith.addi %b, %p3 : vector<8xi32>
  %r = arith.addi %acc, %c : vector<8xi32>
  return %r : vector<8xi32>
}
