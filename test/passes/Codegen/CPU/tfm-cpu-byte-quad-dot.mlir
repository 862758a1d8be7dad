// RUN: tfmc-opt %s -split-input-file -tfm-cpu-byte-quad-dot | FileCheck %s

// The lowering's form (q8_0x4 panels, vectorised): per 32-bit lane, the
// four bytes of the quants with their top bits flipped (q + 128, unsigned)
// times the four bytes of the inputs (signed), summed into the
// accumulator. With AVX-512 VNNI, 16 lanes go through one vpdpbusd; the
// flip becomes one xor with 0x80808080 (-2139062144) per lane.

module attributes {tfm.target = #tfm.target<backend = "cpu", triple = "x86_64-unknown-linux-gnu", cpu = "icelake-server", features = "+avx,+avx2,+avx512f,+avx512bw,+avx512vnni", vector_bits = 512, vector_registers = 32>} {
// CHECK-LABEL: func.func @quad
// CHECK-SAME: (%[[W:.*]]: vector<16xi32>, %[[X:.*]]: vector<16xi32>, %[[ACC:.*]]: vector<16xi32>)
// CHECK: %[[FLIP:.*]] = arith.constant dense<-2139062144> : vector<16xi32>
// CHECK: %[[U:.*]] = arith.xori %[[W]], %[[FLIP]] : vector<16xi32>
// CHECK: %[[UB:.*]] = vector.bitcast %[[U]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[XB:.*]] = vector.bitcast %[[X]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[UB]], %[[XB]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: return %[[R]]
func.func @quad(%w: vector<16xi32>, %x: vector<16xi32>, %acc: vector<16xi32>) -> vector<16xi32> {
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
}

// -----

// AVX-VNNI (no AVX-512): 8 lanes an instruction, so a 1x16 register tile
// takes two, each on its slice; the sum of products may come first, the
// products in any order with the operands swapped, and the sum reshaped to
// the accumulator's shape (a tile of rows drops unit dimensions).

module attributes {tfm.target = #tfm.target<backend = "cpu", triple = "x86_64-unknown-linux-gnu", cpu = "alderlake", features = "+avx,+avx2,+avxvnni", vector_bits = 256, vector_registers = 16>} {
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
func.func @avx_vnni(%w: vector<1x1x16xi32>, %x: vector<1x1x16xi32>, %acc: vector<1x16xi32>) -> vector<1x16xi32> {
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
}

// -----

// Forms that are not one lane's four biased byte products stay as they
// are: a byte used twice (no byte 3), the quants' bytes unflipped, and
// quants and inputs of different lanes.

module attributes {tfm.target = #tfm.target<backend = "cpu", triple = "x86_64-unknown-linux-gnu", cpu = "icelake-server", features = "+avx,+avx2,+avx512f,+avx512bw,+avx512vnni", vector_bits = 512, vector_registers = 32>} {
// CHECK-LABEL: func.func @not_quads
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @not_quads(%w: vector<16xi32>, %x: vector<16xi32>, %y: vector<16xi32>, %acc: vector<16xi32>) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>) {
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
}

// -----

// Without VNNI (AVX2 only, or AVX-512 without it) the form stays portable.

module attributes {tfm.target = #tfm.target<backend = "cpu", triple = "x86_64-unknown-linux-gnu", cpu = "skylake-avx512", features = "+avx,+avx2,+avx512f,+avx512bw,-avx512vnni", vector_bits = 512, vector_registers = 32>} {
// CHECK-LABEL: func.func @no_vnni
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @no_vnni(%w: vector<16xi32>, %x: vector<16xi32>, %acc: vector<16xi32>) -> vector<16xi32> {
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
}
