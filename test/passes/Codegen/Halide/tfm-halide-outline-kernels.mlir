// RUN: tfmc-opt %s -split-input-file -tfm-halide-outline-kernels="kinds=norm,projection,lm-head,elementwise,positional,attention" | FileCheck %s

// A norm becomes a call of a kernel described for tfmc-halide-gen, with
// the target's features as Halide names them: AVX-512 levels only when
// every extension they imply is there (no avx512_skylake without vl).
// CHECK: tfm_halide.kernel @norm_0 {
// CHECK-SAME: \22kind\22: \22norm\22
// CHECK-SAME: \22features\22: [\22avx\22, \22avx2\22, \22fma\22, \22avx512\22]
// CHECK-SAME: \22rows\22: 8
// CHECK-SAME: \22norm\22: \22rms_norm\22
// CHECK-SAME: \22unit_offset\22: true
// CHECK-LABEL: func.func @norm(
// CHECK-SAME: %[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<8x64xf32>
// CHECK: %[[Y:.*]] = tfm_halide.call @norm_0(%[[X]], %[[W]] : tensor<8x64xf32>, tensor<64xf32>) outs(%[[INIT]] : tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK: return %[[Y]]
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx,+avx2,+fma,+avx512f,+avx512cd,-avx512vl", vector_bits = 512, vector_registers = 32>>} {
  func.func @norm(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
    %y = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, unit_offset} : tensor<8x64xf32>, tensor<64xf32>
    return %y : tensor<8x64xf32>
  }
}

// -----

// A norm per head is the norm kernel over one row per head: [8, 64] as
// [32, 16] in, and back.
// CHECK: tfm_halide.kernel @norm_0 {
// CHECK-SAME: \22rows\22: 32,\22features\22: 16
// CHECK-LABEL: func.func @norm_per_head(
// CHECK-SAME: %[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<16xf32>
// CHECK: %[[HEADS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [8, 4, 16]
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[HEADS]] {{\[}}[0, 1], [2]] : tensor<8x4x16xf32> into tensor<32x16xf32>
// CHECK: %[[Y:.*]] = tfm_halide.call @norm_0(%[[ROWS]], %[[W]] : tensor<32x16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<32x16xf32>)
// CHECK: %[[BACK:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [8, 4, 16]
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[BACK]] {{\[}}[0], [1, 2]] : tensor<8x4x16xf32> into tensor<8x64xf32>
// CHECK: return %[[OUT]]
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @norm_per_head(%x: tensor<8x64xf32>, %w: tensor<16xf32>) -> tensor<8x64xf32> {
    %y = tfm.rms_norm %x, %w {eps = 1.0e-06 : f32, group_size = 16 : i64} : tensor<8x64xf32>, tensor<16xf32>
    return %y : tensor<8x64xf32>
  }
}

// -----

// A LayerNorm per head whose heads have weights of their own, without bias
// (StableLM 2 12B): one row per head, and the weights as [heads, 16], one
// vector per row of a head (weight_groups).
// CHECK: tfm_halide.kernel @norm_0 {
// CHECK-SAME: \22rows\22: 32,\22features\22: 16,\22norm\22: \22layer_norm\22
// CHECK-SAME: \22bias\22: false,\22weight_groups\22: 4
// CHECK-LABEL: func.func @layer_norm_heads(
// CHECK-SAME: %[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<8x4x16xf32> into tensor<32x16xf32>
// CHECK: %[[WEIGHTS:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
// CHECK: tfm_halide.call @norm_0(%[[ROWS]], %[[WEIGHTS]] : tensor<32x16xf32>, tensor<4x16xf32>) outs(%{{.*}} : tensor<32x16xf32>)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @layer_norm_heads(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
    %y = tfm.layer_norm %x, %w {eps = 1.0e-05 : f32, group_size = 16 : i64} : tensor<8x64xf32>, tensor<64xf32>
    return %y : tensor<8x64xf32>
  }
}

// -----

// A LayerNorm per head with weights and bias shared by the heads: the
// same kernel as any row's.
// CHECK: tfm_halide.kernel @norm_0 {
// CHECK-SAME: \22rows\22: 32,\22features\22: 16,\22norm\22: \22layer_norm\22
// CHECK-SAME: \22bias\22: true}
// CHECK-LABEL: func.func @layer_norm_shared(
// CHECK: tfm_halide.call @norm_0(%{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16xf32>, tensor<16xf32>)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @layer_norm_shared(%x: tensor<8x64xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x64xf32> {
    %y = tfm.layer_norm %x, %w, %b {eps = 1.0e-05 : f32, group_size = 16 : i64} : tensor<8x64xf32>, tensor<16xf32>, tensor<16xf32>
    return %y : tensor<8x64xf32>
  }
}

// -----

// Ops with one description share a kernel; another shape is another one.
// CHECK: tfm_halide.kernel @projection_0
// CHECK-SAME: \22rows\22: 4,{{.*}}\22weight\22: \22f16\22,{{.*}}\22bias\22: true
// CHECK: tfm_halide.kernel @projection_1
// CHECK-SAME: \22rows\22: 1
// CHECK-LABEL: func.func @projections(
// CHECK: tfm_halide.call @projection_0(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<32x64xf16>, tensor<32xf32>)
// CHECK: tfm_halide.call @projection_0(
// CHECK: tfm_halide.call @projection_1(
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @projections(%x: tensor<4x64xf32>, %v: tensor<1x64xf32>, %w: tensor<32x64xf16>, %b: tensor<32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<1x32xf32>) {
    %0 = tfm.linear %x, %w, %b : tensor<4x64xf32>, tensor<32x64xf16>, tensor<32xf32> -> tensor<4x32xf32>
    %1 = tfm.linear %x, %w, %b : tensor<4x64xf32>, tensor<32x64xf16>, tensor<32xf32> -> tensor<4x32xf32>
    %2 = tfm.linear %v, %w, %b : tensor<1x64xf32>, tensor<32x64xf16>, tensor<32xf32> -> tensor<1x32xf32>
    return %0, %1, %2 : tensor<4x32xf32>, tensor<4x32xf32>, tensor<1x32xf32>
  }
}

// -----

// A product of an activation only it reads is one gated kernel (SwiGLU);
// the activation is gone.
// CHECK: tfm_halide.kernel @elementwise_0
// CHECK-SAME: \22op\22: \22swiglu\22
// CHECK-LABEL: func.func @swiglu(
// CHECK-SAME: %[[GATE:.*]]: tensor<2x16xf32>, %[[UP:.*]]: tensor<2x16xf32>
// CHECK-NOT: tfm.silu
// CHECK: tfm_halide.call @elementwise_0(%[[GATE]], %[[UP]] :
// CHECK-NOT: tfm_halide.call
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @swiglu(%gate: tensor<2x16xf32>, %up: tensor<2x16xf32>) -> tensor<2x16xf32> {
    %a = tfm.silu %gate : tensor<2x16xf32>
    %y = tfm.mul %a, %up : tensor<2x16xf32>
    return %y : tensor<2x16xf32>
  }
}

// -----

// An activation read twice stays a kernel of its own.
// CHECK-LABEL: func.func @shared_activation(
// CHECK: %[[A:.*]] = tfm_halide.call @elementwise_0(
// CHECK: tfm_halide.call @elementwise_1(%[[A]], %{{.*}} :
// CHECK: tfm_halide.call @elementwise_2(%[[A]], %{{.*}} :
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @shared_activation(%gate: tensor<2x16xf32>, %up: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
    %a = tfm.silu %gate : tensor<2x16xf32>
    %y = tfm.mul %a, %up : tensor<2x16xf32>
    %z = tfm.add %a, %up : tensor<2x16xf32>
    return %y, %z : tensor<2x16xf32>, tensor<2x16xf32>
  }
}

// -----

// RoPE sees its heads: [rows, heads, head_dim] in and out, then the
// activation's own shape again; its position is the kernel's `pos`.
// CHECK: tfm_halide.kernel @positional_0
// CHECK-SAME: \22op\22: \22rope\22,{{.*}}\22heads\22: 4,{{.*}}\22head_dim\22: 16,{{.*}}\22layout\22: \22half_split\22
// CHECK-LABEL: func.func @rope(
// CHECK-SAME: %[[Q:.*]]: tensor<8x64xf32>, %[[POS:.*]]: index
// CHECK: %[[HEADS:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2]] output_shape [8, 4, 16]
// CHECK: %[[R:.*]] = tfm_halide.call @positional_0(%[[HEADS]], %[[POS]] : tensor<8x4x16xf32>, index) outs(%{{.*}} : tensor<8x4x16xf32>)
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<8x4x16xf32> into tensor<8x64xf32>
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @rope(%q: tensor<8x64xf32>, %pos: index) -> tensor<8x64xf32> {
    %r = tfm.rope %q[%pos] {head_dim = 16 : i64, theta = 1.0e+04 : f32, layout = #tfm.rope_layout<half_split>} : tensor<8x64xf32>
    return %r : tensor<8x64xf32>
  }
}

// -----

// A partial RoPE's rotary_dim travels in the description.
// CHECK: tfm_halide.kernel @positional_0
// CHECK-SAME: \22op\22: \22rope\22,{{.*}}\22head_dim\22: 16,\22rotary_dim\22: 6,
// CHECK-LABEL: func.func @rope_partial(
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @rope_partial(%q: tensor<8x64xf32>, %pos: index) -> tensor<8x64xf32> {
    %r = tfm.rope %q[%pos] {head_dim = 16 : i64, rotary_dim = 6 : i64, theta = 1.0e+04 : f32, layout = #tfm.rope_layout<half_split>} : tensor<8x64xf32>
    return %r : tensor<8x64xf32>
  }
}

// -----

// A head with a bias is a projection kernel with a bias (the LM head
// kernel has none).
// CHECK: tfm_halide.kernel @projection_0
// CHECK-SAME: \22kind\22: \22projection\22
// CHECK-SAME: \22bias\22: true
// CHECK-LABEL: func.func @lm_head_bias(
// CHECK: tfm_halide.call @projection_0(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<32x64xf32>, tensor<32xf32>)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @lm_head_bias(%x: tensor<4x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
    %0 = tfm.lm_head %x, %w, %b : tensor<4x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<4x32xf32>
    return %0 : tensor<4x32xf32>
  }
}

// -----

// A scaled RoPE's frequencies and attention factor travel in the
// description.
// CHECK: tfm_halide.kernel @positional_0
// CHECK-SAME: \22op\22: \22rope\22,{{.*}}\22head_dim\22: 4,{{.*}}\22frequencies\22: [0.5, 0.0250000{{[0-9]+}}],\22attention_factor\22: 1.25
// CHECK-LABEL: func.func @rope_scaled(
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @rope_scaled(%q: tensor<8x16xf32>, %pos: index) -> tensor<8x16xf32> {
    %r = tfm.rope %q[%pos] {head_dim = 4 : i64, theta = 1.0e+04 : f32, layout = #tfm.rope_layout<half_split>, frequencies = array<f32: 0.5, 0.025>, attention_factor = 1.25 : f32} : tensor<8x16xf32>
    return %r : tensor<8x16xf32>
  }
}

// -----

// Attention over a slice of the KV cache up to pos + rows reads the
// layer's whole cache: the kernel stops at pos + rows itself.
// CHECK: tfm_halide.kernel @attention_0
// CHECK-SAME: \22kind\22: \22attention\22
// CHECK-SAME: \22rows\22: 1,{{.*}}\22heads\22: 4,{{.*}}\22kv_heads\22: 2,{{.*}}\22head_dim\22: 16,{{.*}}\22positions\22: 128,{{.*}}\22mask\22: \22causal\22
// CHECK-SAME: \22cache\22: \22f16\22
// CHECK-LABEL: func.func @decode_attention(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x64xf32>, %[[CACHE:[^:]*]]: tensor<2x2x128x16xf16>, %[[POS:.*]]: index
// CHECK-DAG: %[[K:.*]] = tensor.extract_slice %[[CACHE]][0, 0, 0, 0] [1, 2, 128, 16] [1, 1, 1, 1] : tensor<2x2x128x16xf16> to tensor<2x128x16xf16>
// CHECK-DAG: %[[V:.*]] = tensor.extract_slice %[[CACHE]][1, 0, 0, 0] [1, 2, 128, 16] [1, 1, 1, 1] : tensor<2x2x128x16xf16> to tensor<2x128x16xf16>
// CHECK: tfm_halide.call @attention_0(%{{.*}}, %[[K]], %[[V]], %[[POS]] : tensor<1x4x16xf32>, tensor<2x128x16xf16>, tensor<2x128x16xf16>, index)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @decode_attention(%q: tensor<1x64xf32>, %cache: tensor<2x2x128x16xf16>, %pos: index) -> tensor<1x64xf32> {
    %c1 = arith.constant 1 : index
    %n = arith.addi %pos, %c1 : index
    %k = tensor.extract_slice %cache[0, 0, 0, 0] [1, 2, %n, 16] [1, 1, 1, 1] : tensor<2x2x128x16xf16> to tensor<2x?x16xf16>
    %v = tensor.extract_slice %cache[1, 0, 0, 0] [1, 2, %n, 16] [1, 1, 1, 1] : tensor<2x2x128x16xf16> to tensor<2x?x16xf16>
    %a = tfm.attention %q, %k, %v[%pos] {cache = #tfm.cache_role<self>, mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<1x64xf32>, tensor<2x?x16xf16>, tensor<2x?x16xf16>
    return %a : tensor<1x64xf32>
  }
}

// -----

// A sliding window's rolling cache: its slots written so far are
// min(pos + rows, ring), the kernel's own bound; an encoder's keys end at
// its real length, which the kernel takes as `keys`.
// CHECK: tfm_halide.kernel @attention_0 {{.*}}\22positions\22: 8,{{.*}}\22mask\22: \22sliding_window\22,\22window\22: 6,{{.*}}\22key_count\22: false,\22ring\22: true
// CHECK: tfm_halide.kernel @attention_1 {{.*}}\22mask\22: \22bidirectional\22,{{.*}}\22key_count\22: true,\22ring\22: false
// CHECK-LABEL: func.func @ring(
// CHECK: tfm_halide.call @attention_0(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, index)
// CHECK-LABEL: func.func @encoder(
// CHECK-SAME: %[[LENGTH:[^:]*]]: index
// CHECK: tfm_halide.call @attention_1(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LENGTH]] : tensor<8x4x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, index, index)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @ring(%q: tensor<2x64xf32>, %cache: tensor<2x4x8x16xf32>, %pos: index) -> tensor<2x64xf32> {
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %end = arith.addi %pos, %c2 : index
    %n = arith.minui %end, %c8 : index
    %k = tensor.extract_slice %cache[0, 0, 0, 0] [1, 4, %n, 16] [1, 1, 1, 1] : tensor<2x4x8x16xf32> to tensor<4x?x16xf32>
    %v = tensor.extract_slice %cache[1, 0, 0, 0] [1, 4, %n, 16] [1, 1, 1, 1] : tensor<2x4x8x16xf32> to tensor<4x?x16xf32>
    %a = tfm.attention %q, %k, %v[%pos] {cache = #tfm.cache_role<self>, mask = #tfm.mask<sliding_window>, window = 6 : i64, ring = 8 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64} : tensor<2x64xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>
    return %a : tensor<2x64xf32>
  }
  func.func @encoder(%q: tensor<8x64xf32>, %keys: tensor<4x8x16xf32>, %values: tensor<4x8x16xf32>, %length: index) -> tensor<8x64xf32> {
    %c0 = arith.constant 0 : index
    %k = tensor.extract_slice %keys[0, 0, 0] [4, %length, 16] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x?x16xf32>
    %v = tensor.extract_slice %values[0, 0, 0] [4, %length, 16] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x?x16xf32>
    %a = tfm.attention %q, %k, %v[%c0] {cache = #tfm.cache_role<none>, mask = #tfm.mask<bidirectional>, num_heads = 4 : i64, num_kv_heads = 4 : i64} : tensor<8x64xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>
    return %a : tensor<8x64xf32>
  }
}

// -----

// Gemma 2's soft caps: the attention kernel caps its scaled scores, and
// the capped logits are an elementwise kernel with its cap.
// CHECK: tfm_halide.kernel @attention_0 {{.*}}\22scale\22: 0.5,\22softcap\22: 5e+01,
// CHECK: tfm_halide.kernel @elementwise_0 {{.*}}\22op\22: \22soft_cap\22,\22rows\22: 1,\22features\22: 64,\22cap\22: 3e+01}
// CHECK-LABEL: func.func @soft_caps(
// CHECK: tfm_halide.call @attention_0
// CHECK: tfm_halide.call @elementwise_0
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @soft_caps(%q: tensor<1x64xf32>, %cache: tensor<2x2x128x16xf32>, %pos: index) -> tensor<1x64xf32> {
    %c1 = arith.constant 1 : index
    %n = arith.addi %pos, %c1 : index
    %k = tensor.extract_slice %cache[0, 0, 0, 0] [1, 2, %n, 16] [1, 1, 1, 1] : tensor<2x2x128x16xf32> to tensor<2x?x16xf32>
    %v = tensor.extract_slice %cache[1, 0, 0, 0] [1, 2, %n, 16] [1, 1, 1, 1] : tensor<2x2x128x16xf32> to tensor<2x?x16xf32>
    %a = tfm.attention %q, %k, %v[%pos] {cache = #tfm.cache_role<self>, mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.5 : f32, softcap = 50.0 : f32} : tensor<1x64xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>
    %c = tfm.soft_cap %a {cap = 30.0 : f32} : tensor<1x64xf32>
    return %c : tensor<1x64xf32>
  }
}

// -----

// Kinds not named stay tfm ops, for the target's own code generator.
// RUN: tfmc-opt %s -split-input-file -tfm-halide-outline-kernels="kinds=norm" | FileCheck %s --check-prefix=ONLY-NORM
// ONLY-NORM-LABEL: func.func @others(
// ONLY-NORM: tfm.linear
// ONLY-NORM: tfm.add
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @others(%x: tensor<4x64xf32>, %w: tensor<32x64xf32>, %y: tensor<4x32xf32>) -> tensor<4x32xf32> {
    %0 = tfm.linear %x, %w : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
    %1 = tfm.add %0, %y : tensor<4x32xf32>
    return %1 : tensor<4x32xf32>
  }
}

// -----

// A matrix stored quantized is read as stored: its GGUF blocks' rows
// (#tfm_halide.block_rows), which the kernel dequantizes; an f16 one as an
// f16 declaration. Declarations no op reads any more are gone.
// CHECK-LABEL: module
// CHECK-NOT: tfm.global_weight @wq :
// CHECK: tfm.global_weight @wq.q8_0 : tensor<32x68xi8> {layout = #tfm_halide.block_rows<q8_0>, stacked = ["wq"]}
// CHECK: tfm.global_weight @wo.f16 : tensor<64x32xf16> {stacked = ["wo"]}
// CHECK: tfm_halide.kernel @projection_0 {{.*}}\22weight\22: \22q8_0\22
// CHECK: tfm_halide.kernel @projection_1 {{.*}}\22weight\22: \22f16\22
// CHECK-LABEL: func.func @stored(
// CHECK: %[[WQ:.*]] = tfm.weight @wq.q8_0 : tensor<32x68xi8>
// CHECK: tfm_halide.call @projection_0(%{{.*}}, %[[WQ]] : tensor<4x64xf32>, tensor<32x68xi8>)
// CHECK: %[[WO:.*]] = tfm.weight @wo.f16 : tensor<64x32xf16>
// CHECK: tfm_halide.call @projection_1(%{{.*}}, %[[WO]] : tensor<4x32xf32>, tensor<64x32xf16>)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  tfm.global_weight @wq : tensor<32x64xf32> {stored = #tfm.stored<q8_0>}
  tfm.global_weight @wo : tensor<64x32xf32> {stored = #tfm.stored<f16>}
  func.func @stored(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %wq = tfm.weight @wq : tensor<32x64xf32>
    %q = tfm.linear %x, %wq : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
    %wo = tfm.weight @wo : tensor<64x32xf32>
    %o = tfm.linear %q, %wo : tensor<4x32xf32>, tensor<64x32xf32> -> tensor<4x64xf32>
    return %o : tensor<4x64xf32>
  }
}

// -----

// A mixture of experts is two kernels: the routing (the router's product
// in the kernel) gives each row's weights and expert indices, which the
// experts' kernel reads with the input and the stacked matrices, each as
// stored (here down in Q8_0 blocks).
// RUN: tfmc-opt %s -split-input-file -tfm-halide-outline-kernels="kinds=moe-routing,moe-experts" | FileCheck %s --check-prefix=MOE
// MOE: tfm.global_weight @down.q8_0 : tensor<128x34xi8> {layout = #tfm_halide.block_rows<q8_0>, stacked = ["down"]}
// MOE: tfm_halide.kernel @moe_routing_0 {
// MOE-SAME: \22kind\22: \22moe-routing\22
// MOE-SAME: \22rows\22: 3,\22experts\22: 4,\22top_k\22: 2,\22routing\22: \22top_k_softmax\22,\22in_features\22: 32,\22router\22: \22f32\22
// MOE: tfm_halide.kernel @moe_experts_0 {
// MOE-SAME: \22kind\22: \22moe-experts\22
// MOE-SAME: \22rows\22: 3,\22in_features\22: 32,\22hidden\22: 32,\22experts\22: 4,\22top_k\22: 2,\22gate\22: \22f32\22,\22up\22: \22f32\22,\22down\22: \22q8_0\22
// MOE-LABEL: func.func @moe(
// MOE-SAME: %[[X:.*]]: tensor<3x32xf32>, %[[ROUTER:.*]]: tensor<4x32xf32>, %[[GATE:.*]]: tensor<128x32xf32>, %[[UP:.*]]: tensor<128x32xf32>
// MOE: %[[ROUTE:.*]]:2 = tfm_halide.call @moe_routing_0(%[[X]], %[[ROUTER]] : tensor<3x32xf32>, tensor<4x32xf32>) outs(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xi32>) -> tensor<3x2xf32>, tensor<3x2xi32>
// MOE: %[[DOWN:.*]] = tfm.weight @down.q8_0 : tensor<128x34xi8>
// MOE: %[[Y:.*]] = tfm_halide.call @moe_experts_0(%[[X]], %[[ROUTE]]#0, %[[ROUTE]]#1, %[[GATE]], %[[UP]], %[[DOWN]] : tensor<3x32xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x34xi8>) outs(%{{.*}} : tensor<3x32xf32>) -> tensor<3x32xf32>
// MOE: return %[[Y]]
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  tfm.global_weight @down : tensor<128x32xf32> {stored = #tfm.stored<q8_0>}
  func.func @moe(%x: tensor<3x32xf32>, %router: tensor<4x32xf32>, %gate: tensor<128x32xf32>, %up: tensor<128x32xf32>) -> tensor<3x32xf32> {
    %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<3x32xf32>, tensor<4x32xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
    %down = tfm.weight @down : tensor<128x32xf32>
    %y = tfm.moe_experts %x, %weights, %experts, %gate, %up, %down : tensor<3x32xf32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>
    return %y : tensor<3x32xf32>
  }
}

// -----

// A token table declared in 16 bits (as a GPU declares one) is described
// as such: the kernel widens what it gathers.
// CHECK: tfm_halide.kernel @positional_0
// CHECK-SAME: \22op\22: \22token_embedding\22,{{.*}}\22table\22: \22bf16\22
// CHECK-LABEL: func.func @embedding_bf16(
// CHECK: tfm_halide.call @positional_0(%{{.*}}, %{{.*}} : tensor<8xi32>, tensor<32x16xbf16>)
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @embedding_bf16(%tokens: tensor<8xi32>, %table: tensor<32x16xbf16>) -> tensor<8x16xf32> {
    %x = tfm.embedding %tokens, %table : tensor<8xi32>, tensor<32x16xbf16> -> tensor<8x16xf32>
    return %x : tensor<8x16xf32>
  }
}
