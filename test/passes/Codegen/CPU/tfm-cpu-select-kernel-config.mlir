// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config -split-input-file | FileCheck %s
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config=int8-inputs=false -split-input-file | FileCheck %s --check-prefix=F32IN
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config=int8-inputs=true -split-input-file | FileCheck %s --check-prefix=INT8IN
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config=weights=q4_0 -split-input-file | FileCheck %s --check-prefix=ASKED
// RUN: tfmc-opt %s -tfm-cpu-select-kernel-config="bf16-inputs accumulators=6 stream-prefetch-distance=0 block-keys=8 cache-prefetch-distance=0" -split-input-file | FileCheck %s --check-prefix=OPTIONS

// The choices per target for the same network: Q8_0, Q4_0 and bf16
// matrices as the file stores them, an f32 classifier, and an attention.
// Each kernel's configuration is its tfm_cpu.config.
// AMD Zen 4: AVX-512 VNNI and AVX512_BF16, 32 registers of 512 bits. Q8_0 and
// Q4_0 take int8 inputs in byte quads summed by vpdpbusd on 16 lanes; the
// tile holds 8 accumulators; streamed weights are prefetched non-temporally.
// Without int8 inputs, Q8_0 and Q4_0 keep their own panels and f32 inputs.
// F32IN-LABEL: func.func @znver4
// F32IN: tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, accumulators = 8, stream_distance = 16, non_temporal = true>
// F32IN: tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, accumulators = 8, stream_distance = 16, non_temporal = true>
// With bf16 inputs the bf16 panels take vdpbf16ps; the other options set
// the tile, the prefetches and the blocks of keys.
// OPTIONS-LABEL: func.func @znver4
// OPTIONS: tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 6, dot = vpdpbusd16, non_temporal = true>
// OPTIONS: tfm_cpu.config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 6, dot = vpdpbusd16, non_temporal = true>
// OPTIONS: tfm_cpu.config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 6, dot = vdpbf16ps, non_temporal = true>
// OPTIONS: tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 6, non_temporal = true>
// OPTIONS: tfm_cpu.config = #tfm_cpu.attention<block_keys = 8>
// CHECK-LABEL: func.func @znver4
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16, stream_distance = 16, non_temporal = true>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16, stream_distance = 16, non_temporal = true>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, accumulators = 8, stream_distance = 16, non_temporal = true>}
// CHECK: tfm.lm_head %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 16, non_temporal = true>}
// CHECK: tfm.attention {{.*}}tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx,+avx2,+fma,+avx512f,+avx512bw,+avx512vnni,+avx512bf16", vector_bits = 512, vector_registers = 32>>} {
tfm.global_weight @q8 : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @q4 : tensor<32x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @bf : tensor<32x64xf32> {stored = #tfm.stored<bf16>}
tfm.global_weight @f : tensor<32x64xf32>
func.func @znver4(%x: tensor<4x64xf32>, %pos: index) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>) {
  %wq8 = tfm.weight @q8 : tensor<32x64xf32>
  %wq4 = tfm.weight @q4 : tensor<32x64xf32>
  %wbf = tfm.weight @bf : tensor<32x64xf32>
  %wf = tfm.weight @f : tensor<32x64xf32>
  %q8 = tfm.linear %x, %wq8 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %q4 = tfm.linear %x, %wq4 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %bf = tfm.linear %x, %wbf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %f = tfm.lm_head %x, %wf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %a = tfm.attention %x, %x, %x[%pos] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
  return %q8, %q4, %bf, %f, %a : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>
}
}

// -----

// Intel Ice Lake: AVX-512 VNNI, no AVX512_BF16; the same quads, and T0
// stream prefetches (an Intel Xeon's non-temporal ones slowed decode).
// CHECK-LABEL: func.func @icelake_server
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 8, dot = vpdpbusd16, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, accumulators = 8, stream_distance = 16>}
// CHECK: tfm.lm_head %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 16>}
// CHECK: tfm.attention {{.*}}tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "icelake-server", features = "+avx,+avx2,+fma,+avx512f,+avx512bw,+avx512vnni", vector_bits = 512, vector_registers = 32>>} {
tfm.global_weight @q8 : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @q4 : tensor<32x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @bf : tensor<32x64xf32> {stored = #tfm.stored<bf16>}
tfm.global_weight @f : tensor<32x64xf32>
func.func @icelake_server(%x: tensor<4x64xf32>, %pos: index) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>) {
  %wq8 = tfm.weight @q8 : tensor<32x64xf32>
  %wq4 = tfm.weight @q4 : tensor<32x64xf32>
  %wbf = tfm.weight @bf : tensor<32x64xf32>
  %wf = tfm.weight @f : tensor<32x64xf32>
  %q8 = tfm.linear %x, %wq8 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %q4 = tfm.linear %x, %wq4 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %bf = tfm.linear %x, %wbf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %f = tfm.lm_head %x, %wf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %a = tfm.attention %x, %x, %x[%pos] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
  return %q8, %q4, %bf, %f, %a : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>
}
}

// -----

// Intel Alder Lake: AVX-VNNI without AVX-512, 16 registers of 256 bits: the
// quads are summed 8 lanes a vpdpbusd, the tile holds 4 accumulators.
// CHECK-LABEL: func.func @alderlake
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 4, dot = vpdpbusd8, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0x4, inputs = int8, accumulators = 4, dot = vpdpbusd8, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, accumulators = 4, stream_distance = 16>}
// CHECK: tfm.lm_head %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 4, stream_distance = 16>}
// CHECK: tfm.attention {{.*}}tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "alderlake", features = "+avx,+avx2,+fma,+avxvnni", vector_bits = 256, vector_registers = 16>>} {
tfm.global_weight @q8 : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @q4 : tensor<32x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @bf : tensor<32x64xf32> {stored = #tfm.stored<bf16>}
tfm.global_weight @f : tensor<32x64xf32>
func.func @alderlake(%x: tensor<4x64xf32>, %pos: index) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>) {
  %wq8 = tfm.weight @q8 : tensor<32x64xf32>
  %wq4 = tfm.weight @q4 : tensor<32x64xf32>
  %wbf = tfm.weight @bf : tensor<32x64xf32>
  %wf = tfm.weight @f : tensor<32x64xf32>
  %q8 = tfm.linear %x, %wq8 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %q4 = tfm.linear %x, %wq4 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %bf = tfm.linear %x, %wbf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %f = tfm.lm_head %x, %wf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %a = tfm.attention %x, %x, %x[%pos] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
  return %q8, %q4, %bf, %f, %a : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>
}
}

// -----

// Intel Haswell: AVX2 without VNNI. Q8_0 keeps its panels and f32 inputs;
// Q4_0 keeps its panels and takes int8 inputs in nibble pairs summed by
// vpmaddubsw (faster there than the quads without VNNI).
// With int8 inputs asked for, Q8_0 takes the quads too, without VNNI no
// instruction sums them (portable 32-bit arithmetic).
// INT8IN-LABEL: func.func @haswell
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 4, stream_distance = 16>
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 4, dot = vpmaddubsw, stream_distance = 16>
// F32IN-LABEL: func.func @haswell
// F32IN: tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, accumulators = 4, stream_distance = 16>
// CHECK-LABEL: func.func @haswell
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, accumulators = 4, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 4, dot = vpmaddubsw, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, accumulators = 4, stream_distance = 16>}
// CHECK: tfm.lm_head %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 4, stream_distance = 16>}
// CHECK: tfm.attention {{.*}}tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "haswell", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16>>} {
tfm.global_weight @q8 : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @q4 : tensor<32x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @bf : tensor<32x64xf32> {stored = #tfm.stored<bf16>}
tfm.global_weight @f : tensor<32x64xf32>
func.func @haswell(%x: tensor<4x64xf32>, %pos: index) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>) {
  %wq8 = tfm.weight @q8 : tensor<32x64xf32>
  %wq4 = tfm.weight @q4 : tensor<32x64xf32>
  %wbf = tfm.weight @bf : tensor<32x64xf32>
  %wf = tfm.weight @f : tensor<32x64xf32>
  %q8 = tfm.linear %x, %wq8 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %q4 = tfm.linear %x, %wq4 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %bf = tfm.linear %x, %wbf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %f = tfm.lm_head %x, %wf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %a = tfm.attention %x, %x, %x[%pos] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
  return %q8, %q4, %bf, %f, %a : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>
}
}

// -----

// The baseline x86-64: no AVX2, 16 registers of 128 bits (a 16-lane f32 row
// takes four, so the tile holds 2 accumulators). Every projection keeps
// f32 inputs and no dot instruction.
// INT8IN-LABEL: func.func @x86_64
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = q8_0x4, inputs = int8, accumulators = 2, stream_distance = 16>
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, inputs = int8, accumulators = 2, stream_distance = 16>
// Without AVX512_BF16 bf16 inputs take no instruction.
// OPTIONS-LABEL: func.func @x86_64
// OPTIONS: tfm_cpu.config = #tfm_cpu.projection<panels = bf16, inputs = bf16, accumulators = 6>
// CHECK-LABEL: func.func @x86_64
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q8_0, accumulators = 2, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, accumulators = 2, stream_distance = 16>}
// CHECK: {{.*}} = tfm.linear %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = bf16, accumulators = 2, stream_distance = 16>}
// CHECK: tfm.lm_head %{{.*}}, %{{.*}} {tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 2, stream_distance = 16>}
// CHECK: tfm.attention {{.*}}tfm_cpu.config = #tfm_cpu.attention<block_keys = 16, cache_prefetch = 32>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64", features = "+sse2", vector_bits = 128, vector_registers = 16>>} {
tfm.global_weight @q8 : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @q4 : tensor<32x64xf32> {stored = #tfm.stored<q4_0>}
tfm.global_weight @bf : tensor<32x64xf32> {stored = #tfm.stored<bf16>}
tfm.global_weight @f : tensor<32x64xf32>
func.func @x86_64(%x: tensor<4x64xf32>, %pos: index) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>) {
  %wq8 = tfm.weight @q8 : tensor<32x64xf32>
  %wq4 = tfm.weight @q4 : tensor<32x64xf32>
  %wbf = tfm.weight @bf : tensor<32x64xf32>
  %wf = tfm.weight @f : tensor<32x64xf32>
  %q8 = tfm.linear %x, %wq8 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %q4 = tfm.linear %x, %wq4 : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %bf = tfm.linear %x, %wbf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %f = tfm.lm_head %x, %wf : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %a = tfm.attention %x, %x, %x[%pos] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
  return %q8, %q4, %bf, %f, %a : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x64xf32>
}
}

// -----

// The panels of matrices as the file stores them, without a target: Q4_K as
// kquant4, Q5_K, Q6_K and stacks of k-quants of different kinds as kquant,
// a stack of different other types in the matrix's own type; a matrix whose
// rows are not whole blocks (48 columns) keeps f32 panels; a bf16 matrix of
// odd width takes no bf16 input pairs. A weight type asked for applies to
// every matrix (the k-quants included), with the same exception.
// CHECK-LABEL: func.func @stored
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = kquant4, accumulators = 8, stream_distance = 16>
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = kquant, accumulators = 8, stream_distance = 16>
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = kquant, accumulators = 8, stream_distance = 16>
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 16>
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 16>
// OPTIONS-LABEL: func.func @stored
// OPTIONS: tfm.linear {{.*}}<panels = bf16, accumulators = 6>
// Asked for int8 inputs without a target, the k-quants take their byte
// quads (portable arithmetic, no dot instruction).
// INT8IN-LABEL: func.func @stored
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8, stream_distance = 16>
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, stream_distance = 16>
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, stream_distance = 16>
// ASKED-LABEL: func.func @stored
// ASKED-COUNT-4: tfm_cpu.config = #tfm_cpu.projection<panels = q4_0, accumulators = 8, stream_distance = 16>
// ASKED: tfm_cpu.config = #tfm_cpu.projection<panels = f32, accumulators = 8, stream_distance = 16>
tfm.global_weight @k4 : tensor<16x256xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @k6 : tensor<16x256xf32> {stored = #tfm.stored<q6_k>}
tfm.global_weight @kqkv : tensor<32x256xf32> {stacked = ["q", "v"], stored = #tfm.stored<q4_k, q6_k>}
tfm.global_weight @mixed : tensor<32x256xf32> {stacked = ["a", "b"], stored = #tfm.stored<q8_0, f16>}
tfm.global_weight @down : tensor<16x48xf32> {stored = #tfm.stored<q8_0>}
tfm.global_weight @odd : tensor<16x7xbf16>
func.func @stored(%x: tensor<4x256xf32>, %y: tensor<4x48xf32>, %z: tensor<4x7xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %k4 = tfm.weight @k4 : tensor<16x256xf32>
  %k6 = tfm.weight @k6 : tensor<16x256xf32>
  %kqkv = tfm.weight @kqkv : tensor<32x256xf32>
  %mixed = tfm.weight @mixed : tensor<32x256xf32>
  %down = tfm.weight @down : tensor<16x48xf32>
  %odd = tfm.weight @odd : tensor<16x7xbf16>
  %a = tfm.linear %x, %k4 : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  %b = tfm.linear %x, %k6 : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  %c = tfm.linear %x, %kqkv : tensor<4x256xf32>, tensor<32x256xf32> -> tensor<4x32xf32>
  %d = tfm.linear %x, %mixed : tensor<4x256xf32>, tensor<32x256xf32> -> tensor<4x32xf32>
  %e = tfm.linear %y, %down : tensor<4x48xf32>, tensor<16x48xf32> -> tensor<4x16xf32>
  %f = tfm.linear %z, %odd : tensor<4x7xf32>, tensor<16x7xbf16> -> tensor<4x16xf32>
  return %a, %b, %c, %d, %e, %f : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// The k-quants where the target has AVX-512 VNNI: by default Q4_K's panels
// become kquant4x4 and the other k-quants' (a stack of Q4_K and Q6_K too)
// kquantx4, byte quads over int8 inputs summed by vpdpbusd; without int8
// inputs they keep kquant4 and kquant with f32 inputs.
// CHECK-LABEL: func.func @kquants_vnni
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 8, dot = vpdpbusd16, stream_distance = 16>
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, dot = vpdpbusd16, stream_distance = 16>
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 8, dot = vpdpbusd16, stream_distance = 16>
// F32IN-LABEL: func.func @kquants_vnni
// F32IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquant4, accumulators = 8, stream_distance = 16>
// F32IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquant, accumulators = 8, stream_distance = 16>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "icelake-server", features = "+avx,+avx2,+fma,+avx512f,+avx512bw,+avx512vnni", vector_bits = 512, vector_registers = 32>>} {
tfm.global_weight @k4 : tensor<16x256xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @k5 : tensor<16x256xf32> {stored = #tfm.stored<q5_k>}
tfm.global_weight @kqkv : tensor<32x256xf32> {stacked = ["q", "v"], stored = #tfm.stored<q4_k, q6_k>}
func.func @kquants_vnni(%x: tensor<4x256xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x32xf32>) {
  %k4 = tfm.weight @k4 : tensor<16x256xf32>
  %k5 = tfm.weight @k5 : tensor<16x256xf32>
  %kqkv = tfm.weight @kqkv : tensor<32x256xf32>
  %a = tfm.linear %x, %k4 : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  %b = tfm.linear %x, %k5 : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  %c = tfm.linear %x, %kqkv : tensor<4x256xf32>, tensor<32x256xf32> -> tensor<4x32xf32>
  return %a, %b, %c : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x32xf32>
}
}

// -----

// The k-quants where the target has AVX2 and no VNNI: by default (and
// asked for) int8 inputs, their quads summed by vpmaddubsw; f32 inputs
// with int8-inputs=false.
// CHECK-LABEL: func.func @kquants_avx2
// CHECK: tfm_cpu.config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 4, dot = vpmaddubsw, stream_distance = 16>
// F32IN-LABEL: func.func @kquants_avx2
// F32IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquant4, accumulators = 4, stream_distance = 16>
// INT8IN-LABEL: func.func @kquants_avx2
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquant4x4, inputs = int8, accumulators = 4, dot = vpmaddubsw, stream_distance = 16>
// INT8IN: tfm_cpu.config = #tfm_cpu.projection<panels = kquantx4, inputs = int8, accumulators = 4, dot = vpmaddubsw, stream_distance = 16>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "haswell", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16>>} {
tfm.global_weight @k4 : tensor<16x256xf32> {stored = #tfm.stored<q4_k>}
tfm.global_weight @k6 : tensor<16x256xf32> {stored = #tfm.stored<q6_k>}
func.func @kquants_avx2(%x: tensor<4x256xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %k4 = tfm.weight @k4 : tensor<16x256xf32>
  %k6 = tfm.weight @k6 : tensor<16x256xf32>
  %a = tfm.linear %x, %k4 : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  %b = tfm.linear %x, %k6 : tensor<4x256xf32>, tensor<16x256xf32> -> tensor<4x16xf32>
  return %a, %b : tensor<4x16xf32>, tensor<4x16xf32>
}
}
