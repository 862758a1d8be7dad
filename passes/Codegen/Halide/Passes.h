//===- Passes.h - The Halide code generator's passes ------------*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_HALIDE_PASSES_H
#define TFMC_PASSES_CODEGEN_HALIDE_PASSES_H

#include "passes/Codegen/Halide/IR/TfmHalideOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "passes/Codegen/Halide/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Codegen/Halide/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_HALIDE_PASSES_H
