//===- Passes.h - CPU code generation passes -*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_PASSES_H
#define TFMC_PASSES_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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

#include "passes/Codegen/CPU/IR/TfmCpuOps.h"
#include "passes/Codegen/CPU/KernelConfigOptions.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "passes/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Codegen/CPU/Passes.h.inc"

/// The largest buffer a parallel task may allocate for itself: the tiles of
/// a fused projection epilogue. tfm-cpu-tile-projections fuses no epilogue
/// whose tiles are larger, and the CPU pipeline puts buffers up to this size
/// that are allocated inside a parallel loop on the stack.
constexpr int64_t kMaxTaskTileBytes = 16 * 1024;

/// The alignment of every buffer tfm-cpu-plan-memory places, and so of the
/// scratch the entries take (a cache line, and the widest vector).
constexpr int64_t kScratchAlignment = 64;

/// Marks the functions tfm-cpu-outline-kernels makes of an entry's loop
/// nests, which tfm-cpu-dedup-kernels may merge.
constexpr llvm::StringLiteral kKernelAttrName =
    cpu::TfmCpuDialect::kKernelAttrName;

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_CPU_PASSES_H
