//===- NetworkBuilder.h - Emits the tfm ops of @forward ---------*- C++ -*-===//
//
// Thin layer over OpBuilder for the shared blocks (Blocks.h): creates
// @forward, declares each weight on first use (in first-use order, which is
// the blob's order) and gives every op a location naming its layer and role,
// `layers.3.attn.wq`, so that `--mlir-print-debuginfo` shows where an op
// comes from.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BUILDERS_NETWORKBUILDER_H
#define TFMC_COMPILER_BUILDERS_NETWORKBUILDER_H

#include "compiler/builders/WeightNames.h"
#include "compiler/spec/DecoderConfig.h"
#include "compiler/spec/RopeScaling.h"
#include "dialect/TfmOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

namespace tfmc {

/// What an attention op is beyond its operands and head counts.
struct AttentionKind {
  mlir::tfm::MaskKind mask = mlir::tfm::MaskKind::causal;
  mlir::tfm::CacheRole cache = mlir::tfm::CacheRole::self;
  int64_t window = 0;       ///< > 0: a sliding window
  mlir::Value slopes;       ///< ALiBi slopes, or null
  mlir::Value relativeBias; ///< T5's [buckets, heads] table, or null
  int64_t maxDistance = 0;  ///< of the relative bias's buckets
  float scale = 0.0f;       ///< > 0: the score factor; 0: 1/sqrt(head_dim)
  float softcap = 0.0f;     ///< > 0: scores become softcap * tanh(s / softcap)
};

class NetworkBuilder {
public:
  /// Creates `func.func @forward(tensor<sequence x i32>) -> logits` at the
  /// end of `module`; weights are declared with `weightType` elements.
  /// `contextLength`: the positions of the network's KV cache (the
  /// compiled context, at most the config's).
  NetworkBuilder(mlir::ModuleOp module, const DecoderConfig &config,
                 mlir::Type weightType, int64_t sequence,
                 int64_t contextLength);

  const DecoderConfig &config() const { return config_; }
  int64_t contextLength() const { return contextLength_; }
  /// The token ids argument of @forward.
  mlir::Value tokens() const { return tokens_; }
  /// The network function being built.
  mlir::func::FuncOp forward() const { return forward_; }
  /// Position offset of the sequence (0 in @forward).
  mlir::Value offset() const { return offset_; }
  /// Canonical names of the weights declared so far.
  const llvm::StringSet<> &declaredWeights() const { return declared_; }

  /// Appends a second token-ids argument (an encoder-decoder's decoder
  /// tokens; the first is then the encoder's) of the same length.
  mlir::Value addTokensArgument();

  /// Ops from here on belong to `layer` (-1: outside the layers).
  void setLayer(int64_t layer) { layer_ = layer; }
  /// Weights and locations from here on belong to the stack `stack` of an
  /// encoder-decoder ("encoder", "decoder"; empty: shared by both), which
  /// prefixes their names: `encoder.layers.3.attn.wq`.
  void setStack(llvm::StringRef stack) { stack_ = stack.str(); }
  int64_t layer() const { return layer_; }
  /// The location `what` in the current layer: "layers.3.<what>".
  mlir::Location at(llvm::StringRef what);
  /// The location named after the weight `role` of the current layer.
  mlir::Location at(WeightRole role);

  /// Declares (once) and reads `role` of the current layer.
  mlir::Value weight(WeightRole role);
  /// Declares (once) and reads the expert role `role` of the current
  /// layer: every expert's matrix stacked along dimension 0, in expert
  /// order.
  mlir::Value expertWeights(WeightRole role);

  /// `scale` 1 leaves the rows as they are.
  mlir::Value embedding(mlir::Location loc, mlir::Value tokens,
                        mlir::Value table, float scale);
  mlir::Value positionEmbedding(mlir::Location loc, mlir::Value x,
                                mlir::Value table);
  /// Fixed sin/cos encodings of the sequence's positions, added to `x`.
  mlir::Value sinusoidalPosition(mlir::Location loc, mlir::Value x, float base);
  /// `groupSize` > 0 normalises each run of that many features by itself
  /// (a norm per head), with a weight of that size.
  mlir::Value rmsNorm(mlir::Location loc, mlir::Value x, mlir::Value weight,
                      float eps, bool unitOffset, int64_t groupSize = 0);
  /// `bias` may be null. `groupSize` > 0 normalises each run of that many
  /// features by itself, with a weight (and bias) of that size or one of
  /// every feature's.
  mlir::Value layerNorm(mlir::Location loc, mlir::Value x, mlir::Value weight,
                        mlir::Value bias, float eps, int64_t groupSize = 0);
  /// `bias` may be null.
  mlir::Value linear(mlir::Location loc, mlir::Value x, mlir::Value weight,
                     mlir::Value bias);
  /// `rotaryDim` > 0 rotates only each head's first rotaryDim features. With
  /// `scaled`, the rotation's frequencies and cos/sin factor are those of a
  /// scaled RoPE (compiler/spec/RopeScaling.h).
  mlir::Value rope(mlir::Location loc, mlir::Value x, int64_t headDim,
                   int64_t rotaryDim, float theta, RopeLayout layout,
                   const RopeFrequencies *scaled = nullptr);
  /// Causal self-attention (bidirectional and uncached in an encoder);
  /// `window` > 0 makes it a sliding window, `slopes` (may be null) adds
  /// ALiBi biases.
  mlir::Value attention(mlir::Location loc, mlir::Value q, mlir::Value k,
                        mlir::Value v, int64_t numHeads, int64_t numKVHeads,
                        int64_t window, mlir::Value slopes);
  /// Attention of any kind.
  mlir::Value attention(mlir::Location loc, mlir::Value q, mlir::Value k,
                        mlir::Value v, int64_t numHeads, int64_t numKVHeads,
                        const AttentionKind &kind);
  /// A constant f32 vector.
  mlir::Value constantVector(mlir::Location loc, llvm::ArrayRef<float> values);
  mlir::Value add(mlir::Location loc, mlir::Value lhs, mlir::Value rhs);
  mlir::Value mul(mlir::Location loc, mlir::Value lhs, mlir::Value rhs);
  mlir::Value silu(mlir::Location loc, mlir::Value x);
  mlir::Value relu(mlir::Location loc, mlir::Value x);
  /// `exact`: the erf form; else the tanh approximation.
  mlir::Value gelu(mlir::Location loc, mlir::Value x, bool exact = false);
  /// cap * tanh(x / cap), elementwise.
  mlir::Value softCap(mlir::Location loc, mlir::Value x, float cap);
  /// `bias` may be null.
  mlir::Value lmHead(mlir::Location loc, mlir::Value x, mlir::Value table,
                     mlir::Value bias = {});
  /// A mixture of experts: tfm.moe_route, then tfm.moe_experts.
  mlir::Value moe(mlir::Location loc, mlir::Value x, mlir::Value router,
                  mlir::Value gate, mlir::Value up, mlir::Value down,
                  const ExpertSettings &experts);
  /// Terminates @forward with `results` (the logits; an encoder's hidden
  /// states, then its masked-LM logits if it has a head) and gives it their
  /// types.
  void finish(mlir::Location loc, mlir::ValueRange results);

private:
  mlir::Location named(llvm::StringRef name);

  const DecoderConfig &config_;
  int64_t contextLength_;
  mlir::Type weightType_;
  mlir::OpBuilder builder_;
  mlir::OpBuilder declarations_;
  mlir::func::FuncOp forward_;
  mlir::Value tokens_;
  mlir::Value offset_;
  int64_t layer_ = -1;
  std::string stack_;
  llvm::StringMap<mlir::Value> weights_;
  llvm::StringSet<> declared_;
};

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_NETWORKBUILDER_H
