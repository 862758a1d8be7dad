//===- VectorSlices.h - A vector updated one slice at a time ----*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_VECTORSLICES_H
#define TFMC_PASSES_CODEGEN_CPU_VECTORSLICES_H

#include "mlir/IR/Builders.h"

namespace mlir::tfm {

/// The 1-D vector `flat` with each slice of `lanes` elements replaced by
/// `updateSlice(sliceOf)`, where `sliceOf(value)` extracts that slice's
/// elements from `flat` or from another 1-D vector of its length: how the
/// x86 dot-product intrinsics, one register wide, cover a register tile.
/// With `lanes` the whole length, the slice is the vector itself.
Value updateInSlices(
    OpBuilder &b, Location loc, Value flat, int64_t lanes,
    function_ref<Value(function_ref<Value(Value)> sliceOf)> updateSlice);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_CPU_VECTORSLICES_H
