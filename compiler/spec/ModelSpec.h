//===- ModelSpec.h - A model as every stage after loading sees it ---------===//
//
// What a model family makes of a model file (or a preset): the decoder's
// settings, every weight under its canonical name as a view of the file plus
// the steps to its canonical form (compiler/weights/Weight.h), the tokenizer
// and how to describe the model. The builders turn it into `tfm` IR, the
// package writer writes its weights.
//
// Canonical tensor names (builders/WeightNames.h); every matrix is [out, in]:
//   token_embedding            [vocab, dim]
//   position_embedding         [context, dim]            (learned positions)
//   layers.N.attn_norm.weight  [dim]        (+ .bias for LayerNorm)
//   layers.N.attn.wq           [heads*hd, dim]   (+ layers.N.attn.bq
//   [heads*hd]) layers.N.attn.wk           [kv_heads*hd, dim] (+ .bk)
//   layers.N.attn.wv           [kv_heads*hd, dim] (+ .bv)
//   layers.N.attn.wo           [dim, heads*hd]   (+ .bo [dim])
//   layers.N.ffn_norm.weight   [dim]        (+ .bias)
//   layers.N.ffn.w_gate        [hidden, dim]     (SwiGLU only; + .b_gate)
//   layers.N.ffn.w_up          [hidden, dim]     (+ .b_up [hidden])
//   layers.N.ffn.w_down        [dim, hidden]     (+ .b_down [dim])
//   final_norm.weight          [dim]        (+ .bias)
//   lm_head                    [vocab, dim]      (absent when tied)
// An encoder (BERT) has no final norm and no lm_head; with a masked-LM head:
//   mlm_head.dense [dim, dim], mlm_head.dense_bias [dim],
//   mlm_head.norm.weight/.bias [dim], mlm_head.bias [vocab]
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_SPEC_MODELSPEC_H
#define TFMC_COMPILER_SPEC_MODELSPEC_H

#include "compiler/spec/DecoderConfig.h"
#include "compiler/spec/GenerationSpec.h"
#include "compiler/spec/TokenizerSpec.h"
#include "compiler/weights/Weight.h"

#include <map>
#include <string>

namespace tfmc {

/// Canonical name -> weight.
using WeightMap = std::map<std::string, weights::Weight>;

struct ModelSpec {
  std::string family; ///< the models/ folder that made it ("llama")
  DecoderConfig config;
  /// The element type the network declares its weights in; the package
  /// writer converts every weight to it.
  weights::ElementType weightType = weights::ElementType::F32;
  WeightMap weights;
  TokenizerSpec tokenizer; ///< kind empty: no tokenizer
  /// Stop ids and sampling defaults beyond the tokenizer's EOS.
  GenerationSpec generation;
  std::string description; ///< e.g. "llama2.c checkpoint stories260K.bin"
  /// Shown by the executable before it generates (e.g. "random weights").
  std::string note;
};

} // namespace tfmc

#endif // TFMC_COMPILER_SPEC_MODELSPEC_H
