//===- KernelShapes.h - What the GPU kernel configs look at -----*- C++ -*-===//
//
// The facts tfm-gpu-select-kernel-config decides from, and that the passes
// applying a config check again before they rely on them: which loops a
// reduction combines and with what, whether an operand's rows are
// contiguous and aligned for vector loads.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_GPU_KERNELSHAPES_H
#define TFMC_PASSES_CODEGEN_GPU_KERNELSHAPES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <optional>

namespace mlir::tfm {

/// A projection `out[m, n] += in[m, k] * w[n, k]` (the linalg form of
/// tfm.linear, with the weights' element type widened in the body).
struct Projection {
  int64_t rows, outputs, features;
  /// The weights' element type as stored (f32, f16, bf16).
  Type weightType;
};

/// `op` as a projection, if it is one (static shapes, loops (m, n, k) in
/// that order, the weights operand second).
std::optional<Projection> matchProjection(linalg::LinalgOp op);

/// A reduction over its innermost loop that a warp can share: the loop is
/// the last one, every input reads along it as its innermost, contiguous
/// dimension (or not at all), the one output not at all, and the body
/// yields `combine(out, f(inputs))`.
struct InnermostReduction {
  vector::CombiningKind kind;
  /// The op of the body that combines the accumulator with the new value.
  Operation *combiner;
};
std::optional<InnermostReduction> matchInnermostReduction(linalg::LinalgOp op);

/// Whether every `elements` consecutive elements of `tensor`'s rows (its
/// innermost dimension) start at an address aligned to their size, when
/// the row's first element is: the innermost dimension is contiguous and
/// every slice offset on the way to the allocation or argument the tensor
/// views is a multiple of `elements` elements (or of a stride that is).
/// Allocations, arguments and weights start at least 16-byte aligned.
bool hasAlignedRows(Value tensor, int64_t elements);

/// Largest of `candidates` (descending) that divides `size`, else 1.
int64_t largestDividing(int64_t size, ArrayRef<int64_t> candidates);

/// Largest divisor of `size` that is at most `limit`.
int64_t largestDivisorAtMost(int64_t size, int64_t limit);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_GPU_KERNELSHAPES_H
