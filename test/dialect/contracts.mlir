// RUN: tfmc-opt %s -split-input-file | tfmc-opt -split-input-file | FileCheck %s

// The module and argument attributes that stages hand to each other
// round-trip in their typed form.

// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<prefill = @prefill, decode = @decode, prefill_chunk = 4, context_length = 16>
// CHECK-SAME: tfm.model = #tfm.model<context_length = 512, kind = decoder>
// CHECK-SAME: tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f", vector_bits = 512, vector_registers = 32>>
// CHECK-SAME: tfm.weights = #tfm.weights_layout<bytes = 128, hash = 42, offsets = {w = 0 : i64}>
module attributes {
    tfm.model = #tfm.model<context_length = 512, kind = decoder>,
    tfm.entries = #tfm.entries<prefill = @prefill, decode = @decode, prefill_chunk = 4, context_length = 16>,
    tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f", vector_bits = 512, vector_registers = 32>>,
    tfm.weights = #tfm.weights_layout<bytes = 128, hash = 42, offsets = {w = 0 : i64}>} {
  // CHECK-LABEL: func.func @prefill
  // CHECK-SAME: tensor<4xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>}
  // CHECK-SAME: index {tfm.entry_arg = #tfm.entry_arg<position>}
  // CHECK-SAME: index {tfm.entry_arg = #tfm.entry_arg<count>}
  // CHECK-SAME: memref<2x1x1x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}
  func.func @prefill(%t: tensor<4xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>},
                     %p: index {tfm.entry_arg = #tfm.entry_arg<position>},
                     %c: index {tfm.entry_arg = #tfm.entry_arg<count>},
                     %kv: memref<2x1x1x16x4xf32> {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) {
    return
  }
  func.func @decode() {
    return
  }
}

// -----

// The network function is named by symbol until tfm-kv-cache replaces it;
// the kind says what it computes.
// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.model = #tfm.model<context_length = 8, kind = decoder, network = @forward>
module attributes {tfm.model = #tfm.model<context_length = 8, kind = decoder, network = @forward>} {
  func.func @forward(%t: tensor<2xi32>) -> tensor<2xi32> {
    return %t : tensor<2xi32>
  }
}

// -----

// An encoder's entries: encode alone, no cache and no prefill chunk; its
// length argument says how many tokens are real.
// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<encode = @encode, context_length = 8>
// CHECK-SAME: tfm.model = #tfm.model<context_length = 8, kind = encoder>
module attributes {tfm.entries = #tfm.entries<encode = @encode, context_length = 8>,
                   tfm.model = #tfm.model<context_length = 8, kind = encoder>} {
  // CHECK-LABEL: func.func @encode
  // CHECK-SAME: index {tfm.entry_arg = #tfm.entry_arg<length>}
  func.func @encode(%t: tensor<8xi32> {tfm.entry_arg = #tfm.entry_arg<tokens>},
                    %n: index {tfm.entry_arg = #tfm.entry_arg<length>}) {
    return
  }
}

// -----

// Encode buckets: shorter copies of encode, by increasing rows.
// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<encode = @encode, context_length = 8, encode_buckets = [#tfm.encode_bucket<rows = 2, entry = @encode_2>, #tfm.encode_bucket<rows = 4, entry = @encode_4>]>
module attributes {tfm.entries = #tfm.entries<encode = @encode, context_length = 8, encode_buckets = [#tfm.encode_bucket<rows = 2, entry = @encode_2>, #tfm.encode_bucket<rows = 4, entry = @encode_4>]>,
                   tfm.model = #tfm.model<context_length = 8, kind = encoder>} {
  func.func @encode() {
    return
  }
  func.func @encode_2() {
    return
  }
  func.func @encode_4() {
    return
  }
}

// -----

// An encoder-decoder's entries: encode (the source, once) and prefill and
// decode (the target) share one cache.
// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<prefill = @prefill, decode = @decode, encode = @encode, prefill_chunk = 4, context_length = 8>
// CHECK-SAME: tfm.model = #tfm.model<context_length = 8, kind = encoder_decoder>
module attributes {tfm.entries = #tfm.entries<prefill = @prefill, decode = @decode, encode = @encode, prefill_chunk = 4, context_length = 8>,
                   tfm.model = #tfm.model<context_length = 8, kind = encoder_decoder>} {
  func.func @encode() {
    return
  }
  func.func @prefill() {
    return
  }
  func.func @decode() {
    return
  }
}
