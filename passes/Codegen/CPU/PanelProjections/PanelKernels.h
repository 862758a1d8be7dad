//===- PanelKernels.h - Linalg forms of CPU panel projections --*- C++ -*-===//
//
// Shared by the files of this folder: each builds the linalg form of one
// kind of panel projection, the one tfm-cpu-tile-projections turns into a
// micro-kernel, and sets the projection's kernel configuration on the
// linalg op that micro-kernel tiles.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_PANELPROJECTIONS_PANELKERNELS_H
#define TFMC_PASSES_CODEGEN_CPU_PANELPROJECTIONS_PANELKERNELS_H

#include "passes/Codegen/CPU/IR/TfmCpuOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::tfm::cpu {

/// The `[S, P, W]` panel product of a projection seen as `[S, P * W]`, cut
/// to `outputs` columns, plus `bias` if any (ValuePanels.cpp).
Value panelsToColumns(OpBuilder &b, Location loc, Value product,
                      int64_t outputs, Value bias);

/// f32, f16 or bf16 value panels times f32 inputs (ValuePanels.cpp).
Value projectPanels(OpBuilder &b, Location loc, Value input, Value panels,
                    int64_t outputs, Value bias, ProjectionConfigAttr config);

/// bf16 panels times inputs rounded to bf16, in pairs (ValuePanels.cpp).
Value projectBf16Pairs(OpBuilder &b, Location loc, Value input, Value panels,
                       int64_t outputs, Value bias,
                       ProjectionConfigAttr config);

/// Q8_0 / Q4_0 / kquant block panels times f32 inputs (BlockPanels.cpp).
Value projectBlockPanels(OpBuilder &b, Location loc, Value input, Value quants,
                         Value scales, Value mins, int64_t outputs, Value bias,
                         ProjectionConfigAttr config);

/// Q4_0 panels times int8 inputs, in nibble pairs (Int8Inputs.cpp).
Value projectQ4_0WithInt8Inputs(OpBuilder &b, Location loc, Value input,
                                Value quants, Value scales, int64_t outputs,
                                Value bias, ProjectionConfigAttr config);

/// q8_0x4 and q4_0x4 panels times int8 inputs, in byte quads
/// (Int8Inputs.cpp).
Value projectQ8_0x4(OpBuilder &b, Location loc, Value input, Value quants,
                    Value scales, int64_t outputs, Value bias,
                    ProjectionConfigAttr config);
Value projectQ4_0x4(OpBuilder &b, Location loc, Value input, Value quants,
                    Value scales, int64_t outputs, Value bias,
                    ProjectionConfigAttr config);

/// kquantx4 and kquant4x4 panels (the k-quants) times int8 inputs, in byte
/// quads, their integer scales and minimums times the super-block
/// `factors` (Int8Inputs.cpp); `mins` is null for Q6_K's matrices.
Value projectKQuantQuads(OpBuilder &b, Location loc, Value input, Value quants,
                         Value scales, Value mins, Value factors,
                         int64_t outputs, Value bias,
                         ProjectionConfigAttr config);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_PANELPROJECTIONS_PANELKERNELS_H
