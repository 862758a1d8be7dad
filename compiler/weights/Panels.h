//===- Panels.h - Projection weights as column panels -----------*- C++ -*-===//
//
// The packed layout `tfm-pack-weights` declares for a projection's [rows,
// columns] weight: `[P, columns, W]`, element [p, k, j] = row p * W + j, zero
// for rows past the end. The pass asks panelCount() how many panels to
// declare and the package writer calls packPanels() to produce them, so the
// declaration and the bytes follow one rule.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_PANELS_H
#define TFMC_COMPILER_WEIGHTS_PANELS_H

#include "compiler/weights/TensorView.h"

#include "llvm/Support/Error.h"

namespace tfmc::weights {

/// Panels holding `rows` outputs: whole panels of `width` rows, padded with
/// zero panels to a multiple of `group` when that grows the matrix by at
/// most 1/64. The micro-kernels take panels in equal groups (a divisor of the
/// panel count), and a group of several panels streams several weight rows
/// at once: GPT-2's 50257-row classifier is 3142 = 2 x 1571 panels, which
/// would allow groups of 2 only.
int64_t panelCount(int64_t rows, int64_t width, int64_t group);

/// The 2-D `matrix` as `panels` column panels of `width` rows
/// (`[panels, columns, width]`). Errors when the rows do not fit.
llvm::Expected<TensorView> packPanels(const TensorView &matrix, int64_t panels,
                                      int64_t width);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_PANELS_H
