//===- NetworkBuilder.h - Emits tfm ops for the family builders -*- C++ -*-===//
//
// Thin layer over OpBuilder that declares weights on first use and names the
// building blocks the family builders share, so that each family file reads
// like the architecture it describes.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BUILDERS_NETWORKBUILDER_H
#define TFMC_COMPILER_BUILDERS_NETWORKBUILDER_H

#include "compiler/frontends/ModelSpec.h"
#include "dialect/TfmOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace tfmc {

class NetworkBuilder {
public:
  NetworkBuilder(mlir::ModuleOp module, const ModelSpec &spec,
                 int64_t sequence);

  /// The token ids argument of @forward.
  mlir::Value tokens() const { return tokens_; }
  /// The network function being built.
  mlir::func::FuncOp forward() const { return forward_; }
  /// Position offset of the sequence (0 in @forward).
  mlir::Value offset() const { return offset_; }

  /// Declares `name` (if not yet declared) and reads it.
  mlir::Value weight(const std::string &name);
  /// Reads `name` when the spec has it, else returns a null value.
  mlir::Value optionalWeight(const std::string &name);

  mlir::Value embedding(mlir::Value tokens, mlir::Value table);
  mlir::Value positionEmbedding(mlir::Value x, mlir::Value table);
  mlir::Value rmsNorm(mlir::Value x, const std::string &prefix);
  mlir::Value layerNorm(mlir::Value x, const std::string &prefix);
  mlir::Value linear(mlir::Value x, const std::string &weightName,
                     const std::string &biasName = "");
  mlir::Value rope(mlir::Value x);
  mlir::Value attention(mlir::Value q, mlir::Value k, mlir::Value v);
  mlir::Value add(mlir::Value lhs, mlir::Value rhs);
  mlir::Value mul(mlir::Value lhs, mlir::Value rhs);
  mlir::Value silu(mlir::Value x);
  mlir::Value gelu(mlir::Value x);
  mlir::Value lmHead(mlir::Value x, mlir::Value table);

  /// Terminates @forward with `logits`.
  void finish(mlir::Value logits);

private:
  mlir::Location loc() { return builder_.getUnknownLoc(); }

  mlir::ModuleOp module_;
  const ModelSpec &spec_;
  mlir::OpBuilder builder_;
  mlir::OpBuilder declarations_;
  mlir::func::FuncOp forward_;
  mlir::Value tokens_;
  mlir::Value offset_;
  llvm::StringMap<mlir::Value> weights_;
};

/// Family builders: emit the body of @forward.
void buildLlamaNetwork(NetworkBuilder &net, const ModelSpec &spec);
void buildGpt2Network(NetworkBuilder &net, const ModelSpec &spec);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_NETWORKBUILDER_H
