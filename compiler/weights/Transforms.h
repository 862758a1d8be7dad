//===- Transforms.h - Cast, transpose, stack: one library for all ---------===//
//
// The transformations between a tensor as a model file stores it and as the
// weights blob holds it. Frontend formats need casts (f16/bf16 files),
// transposes (GPT-2's Conv1D stores [in, out]) and row slices (GPT-2's
// c_attn holds Q, K and V); the fusion passes declare stacked weights (Q/K/V
// and gate/up in one matrix); the package writer applies all of them.
// Everything but cast only moves elements, so it works on any scalar type.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_TRANSFORMS_H
#define TFMC_COMPILER_WEIGHTS_TRANSFORMS_H

#include "compiler/weights/TensorView.h"

#include "llvm/Support/Error.h"

namespace tfmc::weights {

/// `tensor` in element type `to`: the view itself when the types agree, an
/// exact widening for f16/bf16 -> f32, a round-to-nearest-even narrowing
/// otherwise (f32 -> f16 overflows to infinity past 65504, which the
/// package writer reports).
llvm::Expected<TensorView> cast(const TensorView &tensor, ElementType to);

/// The [cols, rows] transpose of the 2-D `matrix`.
TensorView transpose(const TensorView &matrix);

/// `parts` one after the other along dimension 0. The parts must share the
/// element type and every other dimension; a single part is returned as is.
llvm::Expected<TensorView> stack(llvm::ArrayRef<TensorView> parts);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_TRANSFORMS_H
