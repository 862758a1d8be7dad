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

#endif // TFMC_PASSES_CODEGEN_CPU_IR_TFMCPUOPS_H
