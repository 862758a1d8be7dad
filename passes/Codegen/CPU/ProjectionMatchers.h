//===- ProjectionMatchers.h - Linalg forms of panel projections -*- C++ -*-===//
//
// The local forms tfm-cpu-tile-projections relies on when it tiles a
// projection that its kernel configuration names: the loop order of a panel
// projection, and the two contractions of a block-quantized one.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_PROJECTIONMATCHERS_H
#define TFMC_PASSES_CODEGEN_CPU_PROJECTIONMATCHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tfm::cpu {

/// Loop order of the panel projection: (panel, row, input feature, lane).
enum PanelLoop { kPanel = 0, kRow = 1, kFeature = 2, kLane = 3 };

/// Whether `op` is a static panel projection `out[s, p, j] += x[s, k] *
/// w[p, k, j]` over loops (p, s, k, j), or its form over bf16 pairs
/// (tfm-cpu-lower-projections, bf16 inputs): the i32 input pairs `x[s, k]` and
/// the panels' even and odd columns `w0[p, k, j]`, `w1[p, k, j]`.
bool isPanelProjection(linalg::GenericOp op);

/// Whether `op` is the per-block dot product of block-quantized panels that
/// the tfm_cpu.quantized_linear lowering writes: loops (panel, row, block,
/// quant, lane) into `partial[row, panel, block, lane]`, i8 quants (or
/// q8_0x4's i32 quads) among the inputs, static extents.
bool isBlockPartialProduct(linalg::GenericOp op);

/// The per-block partial products that `op` scales and sums over blocks,
/// loops (panel, row, block, lane) into the output `[row, panel, lane]`,
/// when `op` is the second half of a block-quantized projection and the
/// only reader of its partial products; null otherwise. Its inputs are the
/// partial products, the scales `[panel, block, lane]`, then any others
/// per panel and block (the k-quants' minimums) or per row and block
/// (`[row, block]`: input sums, offsets, the int8 inputs' scales). Q4_0
/// over int8 inputs has loops (panel, row, block, half, lane), the
/// k-quants (panel, row, super-block, sub-block, lane): their other
/// operands may also be per panel and sub-block (`[panel, block, sub,
/// lane]`) or per row and sub-block (`[row, block, sub]`).
linalg::GenericOp blockPartialsOfScaledSum(linalg::GenericOp op);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_PROJECTIONMATCHERS_H
