// RUN: tfmc-opt %s -tfm-kv-cache -split-input-file -verify-diagnostics

// A module without #tfm.model has no network to split.
// expected-error @+1 {{tfm-kv-cache needs the network function: the module's #tfm.model names none}}
module {
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4xi32> {
    return %tokens : tensor<4xi32>
  }
}

// -----

// expected-error @+1 {{tfm-kv-cache needs the network function: the module's #tfm.model names none}}
module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder>} {
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4xi32> {
    return %tokens : tensor<4xi32>
  }
}

// -----

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  // expected-error @+1 {{@forward must map tensor<Sxi32> tokens to one logits tensor in a single block (an encoder: to its results)}}
  func.func @forward(%tokens: tensor<4xf32>) -> tensor<4xf32> {
    return %tokens : tensor<4xf32>
  }
}

// -----

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  // expected-error @+1 {{@forward has no tfm.attention: nothing to cache}}
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4xi32> {
    return %tokens : tensor<4xi32>
  }
}

// -----

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %t = arith.constant dense<0.5> : tensor<32x8xf32>
    %x = tfm.embedding %tokens, %t : tensor<2xi32>, tensor<32x8xf32> -> tensor<2x8xf32>
    %k4 = arith.constant dense<0.5> : tensor<2x4xf32>
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    // expected-error @+1 {{has 1 key/value heads of 4 features but an earlier layer has 2 of 4; one KV cache needs equal layers}}
    %b = tfm.attention %a, %k4, %k4[%c0] {num_heads = 2 : i64, num_kv_heads = 1 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
    return %b : tensor<2x8xf32>
  }
}

// -----

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %t = arith.constant dense<0.5> : tensor<32x8xf32>
    %x = tfm.embedding %tokens, %t : tensor<2xi32>, tensor<32x8xf32> -> tensor<2x8xf32>
    %kv = arith.constant dense<0.5> : tensor<2x2x4xf32>
    // expected-error @+1 {{reads head-major keys already; tfm-kv-cache expects @forward's [keys, features] form}}
    %a = tfm.attention %x, %kv, %kv[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>
    return %a : tensor<2x8xf32>
  }
}

// -----

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<2x8xf32>
    // expected-error @+1 {{has a bidirectional mask; tfm-kv-cache caches causal attention (with or without a sliding window) only}}
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    return %a : tensor<2x8xf32>
  }
}

// -----

// An encoder's attention caches nothing and sees every position.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder, network = @forward>} {
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<2x8xf32>
    // expected-error @+1 {{has cache role none but a causal mask; tfm-kv-cache builds an encoder's entry from bidirectional attention only}}
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<none>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    return %a : tensor<2x8xf32>
  }
}

// -----

// The kind is #tfm.model's: an encoder's network with a cached layer is
// refused, not taken for a decoder.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder, network = @forward>} {
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<2x8xf32>
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    // expected-error @+1 {{has cache role self, but the model is an encoder (#tfm.model's kind), which caches nothing (cache role none)}}
    %b = tfm.attention %a, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    return %b : tensor<2x8xf32>
  }
}

// -----

// ... and a decoder's network with an uncached (an encoder's) attention is
// refused, not taken for an encoder.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<2x8xf32>
    // expected-error @+1 {{has cache role none, but the model is a decoder (#tfm.model's kind), whose attention tfm-kv-cache caches as self-attention (cross-attention belongs to an encoder_decoder, none to an encoder)}}
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<none>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    return %a : tensor<2x8xf32>
  }
}

// -----

// A decoder reads one token sequence; source and target tokens are an
// encoder-decoder's.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  // expected-error @+1 {{@forward takes 2 token sequences, but #tfm.model's kind decoder has 1 (an encoder_decoder: source and target; otherwise one)}}
  func.func @forward(%source: tensor<2xi32>, %target: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<2x8xf32>
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    return %a : tensor<2x8xf32>
  }
}


// -----

module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  // expected-error @+1 {{@forward must map tensor<Sxi32> tokens to one logits tensor in a single block (an encoder: to its results)}}
  func.func @forward(%tokens: tensor<2xi32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : tensor<2x8xf32>
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    return %a, %a : tensor<2x8xf32>, tensor<2x8xf32>
  }
}

// -----

// An op whose result type follows from its operands' shapes but that
// cannot re-infer it (tensor.expand_shape spells its result type) would
// keep @forward's sequence length in every entry: refused, naming the op.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x8xf32>
  func.func @forward(%tokens: tensor<2xi32>) -> tensor<2x8xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x8xf32>
    %x = tfm.embedding %tokens, %table : tensor<2xi32>, tensor<32x8xf32> -> tensor<2x8xf32>
    // expected-error @+1 {{'tensor.expand_shape' op reads values whose shape depends on the sequence length, but cannot re-infer its result types for an entry's sequence; tfm-kv-cache clones only such ops that implement InferTypeOpInterface or have SameOperandsAndResultType}}
    %heads = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 4] : tensor<2x8xf32> into tensor<2x2x4xf32>
    %rows = tensor.collapse_shape %heads [[0], [1, 2]] : tensor<2x2x4xf32> into tensor<2x8xf32>
    %a = tfm.attention %rows, %rows, %rows[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    return %a : tensor<2x8xf32>
  }
}
