//===- Passes.h - GPU code generation passes --------------------*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_GPU_PASSES_H
#define TFMC_PASSES_CODEGEN_GPU_PASSES_H

#include "passes/Codegen/GPU/GpuWeightType.h"
#include "passes/Codegen/GPU/KernelConfig.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "passes/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Codegen/GPU/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_GPU_PASSES_H
