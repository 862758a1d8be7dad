//===- StackLinears.h - One GEMM for projections of one input ---*- C++ -*-===//
//
// Shared by tfm-fuse-qkv and tfm-fuse-ffn: linears that read the same input
// become one linear over weights stacked at compile time, and each original
// result becomes a column slice of the stacked result.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_STACKLINEARS_H
#define TFMC_PASSES_STACKLINEARS_H

#include "dialect/TfmOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfm {

/// Linear ops of `func` grouped by their input, each group in block order.
SmallVector<SmallVector<LinearOp>> groupLinearsByInput(Operation *func);

/// Replaces `linears` (same input, 2 or more, in block order) by one linear
/// over a `tfm.global_weight` named `<prefix><weightLeaf>` that stacks their
/// weights (and `<prefix><biasLeaf>` for their biases), where `<prefix>` is
/// the first weight's name up to its last '.'. Fails without changing
/// anything when the weights are not plain model tensors or only some
/// linears have a bias.
LogicalResult stackLinears(ModuleOp module, ArrayRef<LinearOp> linears,
                           StringRef weightLeaf, StringRef biasLeaf);

/// Erases weight declarations that nothing reads any more.
void eraseUnreadWeights(ModuleOp module);

} // namespace mlir::tfm

#endif // TFMC_PASSES_STACKLINEARS_H
