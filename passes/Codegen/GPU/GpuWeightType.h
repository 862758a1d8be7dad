//===- GpuWeightType.h - The element type of the GPU's matrices -*- C++ -*-===//
//
// `weights=stored|f32|f16|bf16|q8_0|q4_0` is one option under one name in
// tfmc's
// command line (with --target=cuda), tfm-gpu-pipeline and
// tfm-gpu-select-weight-types. Its values are this enum, parsed once by
// llvm::cl (an unknown name is rejected there).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_GPU_GPUWEIGHTTYPE_H
#define TFMC_PASSES_CODEGEN_GPU_GPUWEIGHTTYPE_H

#include "llvm/Support/CommandLine.h"

namespace mlir::tfm {

/// What the GPU's projection matrices are stored in.
enum class GpuWeightType {
  /// f16 or bf16 where the model file stores a matrix so, else f32.
  stored,
  f32,
  /// Rounded to nearest even when the package is written.
  f16,
  bf16,
  /// GGUF's blocks, kept where the file stores a matrix (a projection's, a
  /// token table) so,
  /// else quantized when the package is written (ggml's reference
  /// rounding); the kernels dequantize them in registers.
  q8_0,
  q4_0,
};

/// The option's values, for every option that takes a GpuWeightType.
inline llvm::cl::ValuesClass gpuWeightTypeValues() {
  return llvm::cl::values(
      clEnumValN(GpuWeightType::stored, "stored",
                 "f16 or bf16 where the model file stores a matrix so, else "
                 "f32"),
      clEnumValN(GpuWeightType::f32, "f32", "32-bit floats"),
      clEnumValN(GpuWeightType::f16, "f16",
                 "16-bit floats (half the bytes; rounded)"),
      clEnumValN(GpuWeightType::bf16, "bf16",
                 "bfloat16 (half the bytes; rounded)"),
      clEnumValN(GpuWeightType::q8_0, "q8_0",
                 "GGUF Q8_0 blocks for the projections and token tables (8.5 "
                 "bits a value; quantized), f32 elsewhere"),
      clEnumValN(GpuWeightType::q4_0, "q4_0",
                 "GGUF Q4_0 blocks for the projections and token tables (4.5 "
                 "bits a value; quantized), f32 elsewhere"));
}

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_GPU_GPUWEIGHTTYPE_H
