//===- TensorMap.h - File tensor names -> canonical weights -----*- C++ -*-===//
//
// How a family writes its tensor-name maps: a table of the file's names
// (with `{layer}` for the layer index) and the canonical roles each holds,
// plus how they are stored. takeWeights() checks every stored shape against
// the canonical shapes and records each canonical weight as a view of the
// file plus the transforms to its canonical form.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_TENSORMAP_H
#define TFMC_MODELS_TENSORMAP_H

#include "compiler/builders/WeightNames.h"
#include "compiler/spec/ModelSpec.h"
#include "compiler/spec/TensorTable.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace tfmc {

/// Projections a checkpoint stores as one tensor, split exactly by rows.
struct FusedProjections {
  /// Q's rows, then K's, then V's (llama.cpp's BLOOM, Phi-3's qkv_proj).
  bool qkv = false;
  /// The gate's rows, then the up projection's (Phi-3's gate_up_proj;
  /// llama.cpp's phi3 `ffn_up`).
  bool gateUp = false;
};

struct TensorMapping {
  /// The tensor's name in the file; "{layer}" stands for the layer index.
  const char *source;
  /// The canonical weights it holds, stacked along dimension 0 (GPT-2's
  /// c_attn holds Q, K and V).
  std::vector<WeightRole> roles;
  /// Stored transposed, [in, out] (GPT-2's Conv1D).
  bool transposed = false;
  /// One tensor for all layers, [layers, ...] (llama2.c).
  bool stackedOverLayers = false;
  /// The roles' rows are interleaved per attention head, [heads, roles,
  /// head_dim] (BLOOM's query_key_value), instead of one role after the
  /// other.
  bool perHead = false;
  /// The roles (Q, K, V) are interleaved per KV head, [kv_heads, (heads /
  /// kv_heads queries, one key, one value), head_dim] (Falcon's new decoder
  /// architecture).
  bool perKvGroup = false;
  /// Rows stored before the canonical ones, which are not used (OPT's
  /// learned positions start at row 2); for a tensor neither transposed nor
  /// stacked over layers.
  int64_t skippedRows = 0;
  /// A vector of one role stored as `[heads, head_dim]` (llama.cpp's
  /// per-head query and key norms of StableLM 2 12B), read as one.
  bool headRows = false;
};

/// `pattern` with "{layer}" replaced by `layer`.
std::string tensorName(llvm::StringRef pattern, int64_t layer);

/// Takes the tensors of `mappings` (for `layer`, -1 outside the layers),
/// each named `prefix` + its source, into `weights`.
llvm::Error takeWeights(TensorTable &table, const DecoderConfig &config,
                        llvm::ArrayRef<TensorMapping> mappings, int64_t layer,
                        WeightMap &weights, llvm::StringRef prefix = "");

/// The vector `role` of `layer` from one tensor per attention head,
/// `pattern` with "{layer}" and "{head}" replaced, in head order (Hugging
/// Face's StableLM 2 12B: `self_attn.q_layernorm.norms.{head}.weight`).
llvm::Error takeHeadParts(TensorTable &table, const DecoderConfig &config,
                          llvm::StringRef pattern, WeightRole role,
                          int64_t layer, WeightMap &weights);

/// Hugging Face's `lm_head.weight` as the head, or, when `config` ties the
/// head to the token embedding, ignored (a stored copy adds nothing).
llvm::Error takeLmHead(TensorTable &table, const DecoderConfig &config,
                       WeightMap &weights);

/// Marks the tensors named `prefix` + each of `sources` (for `layer`) as
/// known and not needed.
void ignoreTensors(TensorTable &table, llvm::ArrayRef<const char *> sources,
                   int64_t layer, llvm::StringRef prefix = "");

} // namespace tfmc

#endif // TFMC_MODELS_TENSORMAP_H
