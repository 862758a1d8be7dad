//===- ModelBuilder.h - ModelSpec -> the tfm module -------------*- C++ -*-===//
#ifndef TFMC_COMPILER_BUILDERS_MODELBUILDER_H
#define TFMC_COMPILER_BUILDERS_MODELBUILDER_H

#include "compiler/builders/NetworkBuilder.h"
#include "compiler/spec/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace tfmc {

/// Emits the body of @forward for a model (a family's graph).
using GraphBuilder = llvm::function_ref<void(NetworkBuilder &)>;

/// Builds the full-sequence network `func.func @forward(tokens) -> logits`
/// over `sequence` tokens with `graph`, one `tfm.global_weight` per weight
/// it reads, and `#tfm.model` (the context length, the KV cache's
/// positions, and @forward). Fails when the network and the spec
/// disagree on the weights (a weight read that the spec lacks, or one the
/// spec has that nothing reads).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildModel(mlir::MLIRContext &context, const ModelSpec &spec, int64_t sequence,
           int64_t contextLength, GraphBuilder graph);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_MODELBUILDER_H
