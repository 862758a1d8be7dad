//===- ModelBuilder.h - ModelSpec -> tfm IR, one builder per family -*- C++ -*-===//
#ifndef TFMC_COMPILER_BUILDERS_MODELBUILDER_H
#define TFMC_COMPILER_BUILDERS_MODELBUILDER_H

#include "compiler/frontends/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tfmc {

/// Builds the full-sequence network `func.func @forward(tokens) -> logits`
/// over `sequence` tokens, with one `tfm.global_weight` per tensor of `spec`
/// and the module attribute `tfm.context_length`. The spec must have passed
/// verifyModelSpec.
mlir::OwningOpRef<mlir::ModuleOp> buildModel(mlir::MLIRContext &context,
                                             const ModelSpec &spec,
                                             int64_t sequence,
                                             int64_t contextLength);

} // namespace tfmc

#endif // TFMC_COMPILER_BUILDERS_MODELBUILDER_H
