// RUN: tfmc-opt %s -tfm-kv-cache -split-input-file -verify-diagnostics

// Source and target tokens without a cross-attention: nothing joins them.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder_decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  // expected-error @+1 {{@forward takes source and target tokens but has no cross-attention (cache role cross)}}
  func.func @forward(%source: tensor<4xi32>, %target: tensor<4xi32>) -> tensor<4x32xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %y = tfm.embedding %target, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %s = tfm.attention %y, %y, %y[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    %logits = tfm.lm_head %s, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %logits : tensor<4x32xf32>
  }
}

// -----

// A causal cross-attention: its keys are not positions of the target.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder_decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  func.func @forward(%source: tensor<4xi32>, %target: tensor<4xi32>) -> tensor<4x32xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %x = tfm.embedding %source, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %y = tfm.embedding %target, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    // expected-error @+1 {{has cache role cross and a causal mask; in an encoder-decoder, tfm-kv-cache caches causal self-attention and bidirectional cross-attention, and encodes with bidirectional attention (no window)}}
    %c = tfm.attention %y, %x, %x[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<cross>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    %logits = tfm.lm_head %c, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %logits : tensor<4x32xf32>
  }
}

// -----

// The decoder adds the source's embeddings to its own: encode would have
// to run for every target token.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder_decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  // expected-error @+1 {{@forward's target side reads the source tokens other than through cross-attention keys and values}}
  func.func @forward(%source: tensor<4xi32>, %target: tensor<4xi32>) -> tensor<4x32xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %x = tfm.embedding %source, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %y = tfm.embedding %target, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %c = tfm.attention %y, %x, %x[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<cross>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    %sum = tfm.add %c, %x : tensor<4x16xf32>
    %logits = tfm.lm_head %sum, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %logits : tensor<4x32xf32>
  }
}

// -----

// Cross-attention keys computed from the target: they change every step.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder_decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  // expected-error @+1 {{a cross-attention's keys or values depend on the target tokens}}
  func.func @forward(%source: tensor<4xi32>, %target: tensor<4xi32>) -> tensor<4x32xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %x = tfm.embedding %source, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %y = tfm.embedding %target, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %c = tfm.attention %y, %y, %x[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<cross>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    %logits = tfm.lm_head %c, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %logits : tensor<4x32xf32>
  }
}

// -----

// Self-attention layers of different shapes cannot share one cache.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder_decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  tfm.global_weight @wk : tensor<8x16xf32>
  func.func @forward(%source: tensor<4xi32>, %target: tensor<4xi32>) -> tensor<4x32xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %wk = tfm.weight @wk : tensor<8x16xf32>
    %x = tfm.embedding %source, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %y = tfm.embedding %target, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %k = tfm.linear %y, %wk : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
    %s = tfm.attention %y, %k, %k[%c0] {num_heads = 4 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    // expected-error @+1 {{has 4 key/value heads of 4 features but an earlier layer has 2 of 4; one KV cache needs equal layers}}
    %c = tfm.attention %s, %x, %x[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<bidirectional>, cache = #tfm.cache_role<cross>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    %logits = tfm.lm_head %c, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %logits : tensor<4x32xf32>
  }
}

// -----

// An encoder-decoder's network reads source and target tokens.
module attributes {tfm.model = #tfm.model<context_length = 16, kind = encoder_decoder, network = @forward>} {
  tfm.global_weight @table : tensor<32x16xf32>
  // expected-error @+1 {{@forward takes 1 token sequences, but #tfm.model's kind encoder_decoder has 2 (an encoder_decoder: source and target; otherwise one)}}
  func.func @forward(%target: tensor<4xi32>) -> tensor<4x32xf32> {
    %c0 = arith.constant 0 : index
    %table = tfm.weight @table : tensor<32x16xf32>
    %y = tfm.embedding %target, %table : tensor<4xi32>, tensor<32x16xf32> -> tensor<4x16xf32>
    %s = tfm.attention %y, %y, %y[%c0] {num_heads = 4 : i64, num_kv_heads = 4 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    %logits = tfm.lm_head %s, %table : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
    return %logits : tensor<4x32xf32>
  }
}
