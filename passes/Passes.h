//===- Passes.h - Every tfm pass group --------------------------*- C++ -*-===//
//
// Transforms/ rewrites tfm networks whatever the target; Conversion/ leaves
// the tfm dialect; Codegen/Common/ holds the code generation steps every
// target shares, and Codegen/CPU/ what chooses layouts, tiles, vector widths
// and memory plans for CPUs, Codegen/GPU/ how kernels map onto CUDA GPUs,
// Codegen/Halide/ which kernels tfmc-halide-gen generates and how the host code
// calls them.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_PASSES_H
#define TFMC_PASSES_PASSES_H

#include "passes/Codegen/CPU/Passes.h"
#include "passes/Codegen/Common/Passes.h"
#include "passes/Codegen/GPU/Passes.h"
#include "passes/Codegen/Halide/Passes.h"
#include "passes/Conversion/Passes.h"
#include "passes/Transforms/Passes.h"

namespace mlir::tfm {

/// Registers every tfm pass (for tfmc-opt and the pass-manager flags).
inline void registerTfmPasses() {
  registerTfmTransformsPasses();
  registerTfmConversionPasses();
  registerTfmCodegenCommonPasses();
  registerTfmCodegenCPUPasses();
  registerTfmCodegenGPUPasses();
  registerTfmCodegenHalidePasses();
}

} // namespace mlir::tfm

#endif // TFMC_PASSES_PASSES_H
