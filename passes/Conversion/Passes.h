//===- Passes.h - Conversions out of the tfm dialect -*- C++ -*-===//
#ifndef TFMC_PASSES_CONVERSION_PASSES_H
#define TFMC_PASSES_CONVERSION_PASSES_H

#include "passes/Conversion/TfmToLinalg/TfmToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "passes/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Conversion/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFMC_PASSES_CONVERSION_PASSES_H
