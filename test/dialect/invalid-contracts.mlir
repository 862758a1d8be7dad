// RUN: tfmc-opt %s -split-input-file -verify-diagnostics

// The IR contracts are typed: a stage cannot hand the next one a raw or
// misspelled attribute.

// expected-error @+1 {{unknown tfm attribute 'tfm.context_length' (module attributes: tfm.model, tfm.entries, tfm.target, tfm.weights; entry arguments: tfm.entry_arg)}}
module attributes {tfm.context_length = "eight"} {
}

// -----

// expected-error @+1 {{'tfm.model' must be a #tfm.model, got "eight"}}
module attributes {tfm.model = "eight"} {
}

// -----

// expected-error @+1 {{context_length must be positive, got 0}}
module attributes {tfm.model = #tfm.model<context_length = 0, kind = decoder>} {
}

// -----

// expected-error @+1 {{tfm.model names @forward as the network, but the module has no such function}}
module attributes {tfm.model = #tfm.model<context_length = 8, kind = decoder, network = @forward>} {
}

// -----

// The builder decides the model's kind; the IR states it.
// expected-error @+1 {{struct is missing required parameter: kind}}
module attributes {tfm.model = #tfm.model<context_length = 8>} {
}

// -----

// expected-error @+2 {{expected ::mlir::tfm::ModelKind to be one of: decoder, encoder, encoder_decoder}}
// expected-error @+1 {{failed to parse Tfm_ModelAttr parameter 'kind'}}
module attributes {tfm.model = #tfm.model<context_length = 8, kind = seq2seq>} {
}

// -----

// The entries follow from the kind: a decoder generates (prefill, decode).
// expected-error @+1 {{tfm.entries #tfm.entries<encode = @e, context_length = 8> do not fit tfm.model's kind decoder (a decoder has prefill and decode, an encoder encode, an encoder_decoder all three)}}
module attributes {tfm.model = #tfm.model<context_length = 8, kind = decoder>,
                   tfm.entries = #tfm.entries<encode = @e, context_length = 8>} {
  func.func @e() {
    return
  }
}

// -----

// An encoder's entry is encode alone.
// expected-error @+1 {{do not fit tfm.model's kind encoder}}
module attributes {tfm.model = #tfm.model<context_length = 8, kind = encoder>,
                   tfm.entries = #tfm.entries<prefill = @p, decode = @d, encode = @e, prefill_chunk = 4, context_length = 8>} {
  func.func @p() {
    return
  }
  func.func @d() {
    return
  }
  func.func @e() {
    return
  }
}

// -----

// An encoder-decoder encodes its source and generates its target.
// expected-error @+1 {{do not fit tfm.model's kind encoder_decoder}}
module attributes {tfm.model = #tfm.model<context_length = 8, kind = encoder_decoder>,
                   tfm.entries = #tfm.entries<prefill = @p, decode = @d, prefill_chunk = 4, context_length = 8>} {
  func.func @p() {
    return
  }
  func.func @d() {
    return
  }
}

// -----

// expected-error @+1 {{prefill_chunk must be in [1, context_length = 8], got 16}}
module attributes {tfm.entries = #tfm.entries<prefill = @p, decode = @d, prefill_chunk = 16, context_length = 8>} {
}

// -----

// expected-error @+1 {{tfm.entries names @d as decode, but the module has no such function}}
module attributes {tfm.entries = #tfm.entries<prefill = @p, decode = @d, prefill_chunk = 4, context_length = 8>} {
  func.func @p() {
    return
  }
}

// -----

// expected-error @+1 {{an encoder's entries (encode) take no prefill, decode or prefill_chunk}}
module attributes {tfm.entries = #tfm.entries<encode = @e, prefill_chunk = 4, context_length = 8>} {
}

// -----

// expected-error @+1 {{entries need both prefill and decode symbols, or encode}}
module attributes {tfm.entries = #tfm.entries<prefill = @p, prefill_chunk = 4, context_length = 8>} {
}

// -----

// expected-error @+1 {{tfm.entries names @e as encode, but the module has no such function}}
module attributes {tfm.entries = #tfm.entries<encode = @e, context_length = 8>} {
}

// -----

// expected-error @+2 {{an encode bucket's rows must be positive, got 0}}
// expected-error @+1 {{failed to parse Tfm_EntriesAttr parameter 'encode_buckets'}}
module attributes {tfm.entries = #tfm.entries<encode = @e, context_length = 8, encode_buckets = [#tfm.encode_bucket<rows = 0, entry = @b>]>} {
}

// -----

// expected-error @+1 {{encode_buckets are shorter copies of encode, but the entries have no encode}}
module attributes {tfm.entries = #tfm.entries<prefill = @p, decode = @d, prefill_chunk = 4, context_length = 8, encode_buckets = [#tfm.encode_bucket<rows = 2, entry = @b>]>} {
}

// -----

// expected-error @+1 {{encode_buckets holds @b, which is not a #tfm.encode_bucket}}
module attributes {tfm.entries = #tfm.entries<encode = @e, context_length = 8, encode_buckets = [@b]>} {
}

// -----

// expected-error @+1 {{encode_buckets' rows must increase, but 2 follows 4}}
module attributes {tfm.entries = #tfm.entries<encode = @e, context_length = 8, encode_buckets = [#tfm.encode_bucket<rows = 4, entry = @b4>, #tfm.encode_bucket<rows = 2, entry = @b2>]>} {
}

// -----

// expected-error @+1 {{an encode bucket of 8 rows is not shorter than context_length = 8, which `encode` runs}}
module attributes {tfm.entries = #tfm.entries<encode = @e, context_length = 8, encode_buckets = [#tfm.encode_bucket<rows = 8, entry = @b>]>} {
}

// -----

// expected-error @+1 {{tfm.entries names @b as an encode bucket, but the module has no such function}}
module attributes {tfm.entries = #tfm.entries<encode = @e, context_length = 8, encode_buckets = [#tfm.encode_bucket<rows = 2, entry = @b>]>} {
  func.func @e() {
    return
  }
}

// -----

// expected-error @+1 {{'tfm.entries' must be a #tfm.entries, got #tfm.model<context_length = 8, kind = decoder>}}
module attributes {tfm.entries = #tfm.model<context_length = 8, kind = decoder>} {
}

// -----

// expected-error @+2 {{vector_bits must be a positive multiple of 32, got 100}}
// expected-error @+1 {{failed to parse Tfm_TargetAttr parameter 'config'}}
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "", cpu = "", features = "", vector_bits = 100, vector_registers = 16>>} {
}

// -----

// expected-error @+1 {{a target needs a backend name}}
module attributes {tfm.target = #tfm.target<backend = "", config = #tfm.cpu_target<triple = "", cpu = "", features = "", vector_bits = 256, vector_registers = 16>>} {
}

// -----

// A target's config belongs to its backend.
// expected-error @+1 {{target 'cuda' has the config of 'cpu': #tfm.cpu_target<triple = "", cpu = "", features = "", vector_bits = 256, vector_registers = 16>}}
module attributes {tfm.target = #tfm.target<backend = "cuda", config = #tfm.cpu_target<triple = "", cpu = "", features = "", vector_bits = 256, vector_registers = 16>>} {
}

// -----

// expected-error @+2 {{vector_registers must be positive, got 0}}
// expected-error @+1 {{failed to parse Tfm_TargetAttr parameter 'config'}}
module attributes {tfm.target = #tfm.target<backend = "cpu", config = #tfm.cpu_target<triple = "", cpu = "", features = "", vector_bits = 256, vector_registers = 0>>} {
}

// -----

// A config is a backend's target description, not any attribute.
// expected-error @+2 {{invalid kind of attribute specified}}
// expected-error @+1 {{failed to parse Tfm_TargetAttr parameter 'config' which is to be a `::mlir::tfm::TargetConfigAttrInterface`}}
module attributes {tfm.target = #tfm.target<backend = "cpu", config = 3 : i64>} {
}

// -----

// expected-error @+1 {{'tfm.weights' must be a #tfm.weights_layout}}
module attributes {tfm.weights = 320 : i64} {
}

// -----

module {
  // expected-error @+1 {{'tfm.model' belongs on a module}}
  func.func @f() attributes {tfm.model = #tfm.model<context_length = 8, kind = decoder>} {
    return
  }
}

// -----

// expected-error @+1 {{argument 0 marked #tfm.entry_arg<tokens> must be a 1-D i32 tensor or memref, got 'tensor<4xf32>'}}
func.func @f(%t: tensor<4xf32> {tfm.entry_arg = #tfm.entry_arg<tokens>}) {
  return
}

// -----

// expected-error @+1 {{argument 0 marked #tfm.entry_arg<position> must be an index, got 'tensor<4xi32>'}}
func.func @f(%t: tensor<4xi32> {tfm.entry_arg = #tfm.entry_arg<position>}) {
  return
}

// -----

// expected-error @+1 {{argument 0 marked #tfm.entry_arg<kv_cache> must be a tensor or memref, got 'index'}}
func.func @f(%c: index {tfm.entry_arg = #tfm.entry_arg<kv_cache>}) {
  return
}

// -----

// expected-error @+1 {{argument 0 marked #tfm.entry_arg<scratch> must be a 1-D i8 memref, got 'memref<4xf32>'}}
func.func @f(%s: memref<4xf32> {tfm.entry_arg = #tfm.entry_arg<scratch>}) {
  return
}

// -----

// expected-error @+1 {{argument 0 marked #tfm.entry_arg<scratch> must be a memref, got 'index'}}
func.func @f(%s: index {tfm.entry_arg = #tfm.entry_arg<scratch>}) {
  return
}

// -----

// expected-error @+1 {{'tfm.entry_arg' must be a #tfm.entry_arg, got unit}}
func.func @f(%c: index {tfm.entry_arg}) {
  return
}

// -----

// expected-error @+1 {{unknown tfm argument attribute 'tfm.kv_cache' (expected tfm.entry_arg)}}
func.func @f(%c: memref<4xf32> {tfm.kv_cache}) {
  return
}

// -----

// expected-error @+1 {{argument 0 marked #tfm.entry_arg<length> must be an index, got 'tensor<4xi32>'}}
func.func @f(%t: tensor<4xi32> {tfm.entry_arg = #tfm.entry_arg<length>}) {
  return
}
