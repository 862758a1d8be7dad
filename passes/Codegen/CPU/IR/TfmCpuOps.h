//===- TfmCpuOps.h - The tfm_cpu dialect, attributes and ops ----*- C++ -*-===//
//
// The CPU backend's vocabulary: weight layouts (#tfm_cpu.panels), kernel
// configurations (#tfm_cpu.projection, #tfm_cpu.attention) and the
// projections over packed weights (tfm_cpu.packed_linear,
// tfm_cpu.quantized_linear). See TfmCpuBase.td.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_IR_TFMCPUOPS_H
#define TFMC_PASSES_CODEGEN_CPU_IR_TFMCPUOPS_H

#include "dialect/TfmOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "passes/Codegen/CPU/IR/TfmCpuDialect.h.inc"
#include "passes/Codegen/CPU/IR/TfmCpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/Codegen/CPU/IR/TfmCpuAttrs.h.inc"

#define GET_OP_CLASSES
#include "passes/Codegen/CPU/IR/TfmCpuOps.h.inc"

namespace mlir::tfm::cpu {

/// The element type of the scales and minimums of `format`'s blocks: f16
/// for GGUF's Q8_0 and Q4_0, f32 for the k-quants unpacked (products of f16
/// and integer sub-block scales), i8 for those that keep the integers and
/// their super-block factors (kquantx4, kquant4x4).
Type blockScaleType(MLIRContext *context, tfmc::weights::PanelFormat format);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_IR_TFMCPUOPS_H
