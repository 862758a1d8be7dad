// RUN: tfmc-opt %s -split-input-file -tfm-halide-outline-kernels="kinds=attention,moe-routing,moe-experts,elementwise" -verify-diagnostics
// RUN: not tfmc-opt %s -split-input-file -tfm-halide-outline-kernels="kinds=matmul" 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: unknown kernel kind 'matmul' (kinds: projection, attention, norm, positional, elementwise, moe-routing, lm-head, moe-experts)

// A kind given to Halide that it cannot compile for this op is an error
// naming the kind, never a silent fallback to LLVM.
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @token_major(%q: tensor<4x64xf32>, %k: tensor<4x64xf32>, %v: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{cannot be a Halide 'attention' kernel: its keys are token-major}}
    %a = tfm.attention %q, %k, %v[%c0] {cache = #tfm.cache_role<none>, mask = #tfm.mask<bidirectional>, num_heads = 4 : i64, num_kv_heads = 4 : i64} : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
    return %a : tensor<4x64xf32>
  }
}

// -----

// Keys that are not the first of a head-major tensor (here: from slot 4).
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @offset_keys(%q: tensor<1x64xf32>, %cache: tensor<2x4x64x16xf32>, %pos: index) -> tensor<1x64xf32> {
    %c1 = arith.constant 1 : index
    %n = arith.addi %pos, %c1 : index
    %k = tensor.extract_slice %cache[0, 0, 4, 0] [1, 4, %n, 16] [1, 1, 1, 1] : tensor<2x4x64x16xf32> to tensor<4x?x16xf32>
    %v = tensor.extract_slice %cache[1, 0, 4, 0] [1, 4, %n, 16] [1, 1, 1, 1] : tensor<2x4x64x16xf32> to tensor<4x?x16xf32>
    // expected-error @+1 {{cannot be a Halide 'attention' kernel: its keys and values are not the first keys of a head-major tensor, as many of each}}
    %a = tfm.attention %q, %k, %v[%pos] {cache = #tfm.cache_role<self>, mask = #tfm.mask<causal>, num_heads = 4 : i64, num_kv_heads = 4 : i64} : tensor<1x64xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>
    return %a : tensor<1x64xf32>
  }
}

// -----

// A routing of dynamic rows.
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @dynamic_route(%x: tensor<?x32xf32>, %router: tensor<4x32xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>) {
    // expected-error @+1 {{cannot be a Halide 'moe-routing' kernel: its rows are not static (compile this kind with LLVM: --kernel-backend=moe-routing:llvm)}}
    %weights, %experts = tfm.moe_route %x, %router {top_k = 2 : i64, routing = #tfm.routing<top_k_softmax>} : tensor<?x32xf32>, tensor<4x32xf32> -> tensor<?x2xf32>, tensor<?x2xi32>
    return %weights, %experts : tensor<?x2xf32>, tensor<?x2xi32>
  }
}

// -----

// Experts of dynamic rows.
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "+avx2", vector_bits = 256, vector_registers = 16>>} {
  func.func @dynamic_experts(%x: tensor<?x32xf32>, %weights: tensor<?x2xf32>, %experts: tensor<?x2xi32>, %gate: tensor<128x32xf32>, %down: tensor<128x32xf32>) -> tensor<?x32xf32> {
    // expected-error @+1 {{cannot be a Halide 'moe-experts' kernel: its rows are not static (compile this kind with LLVM: --kernel-backend=moe-experts:llvm)}}
    %y = tfm.moe_experts %x, %weights, %experts, %gate, %gate, %down : tensor<?x32xf32>, tensor<?x2xf32>, tensor<?x2xi32>, tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>
    return %y : tensor<?x32xf32>
  }
}
