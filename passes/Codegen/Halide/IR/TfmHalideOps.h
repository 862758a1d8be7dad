//===- TfmHalideOps.h - The tfm_halide dialect and its ops ------*- C++ -*-===//
//
// Halide kernels as the module declares them (tfm_halide.kernel) and their
// calls (tfm_halide.call). See TfmHalideBase.td.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_HALIDE_IR_TFMHALIDEOPS_H
#define TFMC_PASSES_CODEGEN_HALIDE_IR_TFMHALIDEOPS_H

#include "dialect/TfmOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "passes/Codegen/Halide/IR/TfmHalideDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/Codegen/Halide/IR/TfmHalideAttrs.h.inc"

#define GET_OP_CLASSES
#include "passes/Codegen/Halide/IR/TfmHalideOps.h.inc"

#endif // TFMC_PASSES_CODEGEN_HALIDE_IR_TFMHALIDEOPS_H
