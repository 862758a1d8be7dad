//===- CpuPipeline.h - The CPU code generation pipeline ---------*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_CPU_CPUPIPELINE_H
#define TFMC_PASSES_CODEGEN_CPU_CPUPIPELINE_H

#include "passes/Codegen/CPU/KernelConfigOptions.h"
#include "passes/PipelineOptions.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::tfm {

/// Options of the CPU code generation phase (tfmc's flags when
/// --target=cpu, and the tfm-cpu-codegen-pipeline's options). Every
/// optimisation can be switched off here.
struct CpuCodegenOptions : public PhaseOptions<CpuCodegenOptions> {
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Work-share parallel loops over threads with OpenMP"),
      llvm::cl::init(true)};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Attention as one fused kernel with an online softmax"),
      llvm::cl::init(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Inline polynomial exp/tanh instead of libm calls"),
      llvm::cl::init(true)};
  Option<bool> packWeights{
      *this, "pack-weights",
      llvm::cl::desc("Store projection weights as column panels"),
      llvm::cl::init(true)};
  Option<cpu::WeightTypeOption> weights{
      *this, "weights",
      llvm::cl::desc("Element type of the projection weights: f32, f16, "
                     "bf16, q8_0 or q4_0 (default: as the model file stores "
                     "its matrices; see docs/weight-types.md)"),
      llvm::cl::init(cpu::WeightTypeOption{})};
  /// Unset (no value given): the target's default, which
  /// tfm-cpu-select-kernel-config decides.
  Option<bool> int8Inputs{
      *this, "int8-inputs",
      llvm::cl::desc("Q4_0, Q8_0 and k-quant (Q4_K, Q5_K, Q6_K) "
                     "projections quantize their inputs to int8 per block "
                     "of 32 and sum integer products: vpdpbusd with VNNI, "
                     "Q4_0's vpmaddubsw on AVX2 without it (tfmc compile: "
                     "on by default for Q4_0 and the k-quants where the "
                     "target has AVX2, for Q8_0 where it has AVX-512 VNNI or "
                     "AVX-VNNI)"),
      llvm::cl::init(false)};
  Option<bool> bf16Inputs{
      *this, "bf16-inputs",
      llvm::cl::desc("Projections over bf16 weights round their inputs to "
                     "bf16 and sum products of pairs of input features: "
                     "vdpbf16ps where the target has AVX512_BF16 (off by "
                     "default: see docs/weight-types.md)"),
      llvm::cl::init(false)};
  Option<bool> tileProjections{
      *this, "tile-projections",
      llvm::cl::desc("Register-blocked, vectorised projection kernels "
                     "(on packed weights)"),
      llvm::cl::init(true)};
  Option<int64_t> accumulators{
      *this, "accumulators",
      llvm::cl::desc("Accumulator vectors per projection micro-kernel (0: "
                     "from the #tfm.target, 8 with 32 vector registers, 4 "
                     "with 16)"),
      llvm::cl::init(0)};
  Option<int64_t> kquantGemvPanels{
      *this, "kquant-gemv-panels",
      llvm::cl::desc("Output panels per tile of a k-quant decode GEMV (0: "
                     "as many as the accumulators allow)"),
      llvm::cl::init(1)};
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Intermediates in the caller's scratch, planned at "
                     "compile time (no allocation per call)"),
      llvm::cl::init(true)};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse elementwise producers into parallel consumers"),
      llvm::cl::init(true)};
  Option<bool> promoteAccumulators{
      *this, "promote-accumulators",
      llvm::cl::desc("Carry reduction accumulators in registers"),
      llvm::cl::init(true)};
  Option<bool> prefetchWeights{
      *this, "prefetch-weights",
      llvm::cl::desc("Prefill GEMMs prefetch the next weight tile while "
                     "sweeping this one; decode GEMVs prefetch ahead"),
      llvm::cl::init(true)};
  Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Compute a projection's elementwise epilogue (bias, "
                     "activation, residual add, SwiGLU) inside its kernel "
                     "(multi-threaded kernels only)"),
      llvm::cl::init(true)};
  Option<bool> vectorizeElementwise{
      *this, "vectorize-elementwise",
      llvm::cl::desc("Vectorise the elementwise ops between kernels (norms, "
                     "RoPE, embeddings) in strips"),
      llvm::cl::init(true)};
  Option<int64_t> streamPrefetchDistance{
      *this, "stream-prefetch-distance",
      llvm::cl::desc("Input features ahead that decode GEMVs prefetch their "
                     "panels when the weights are large (0: no prefetch)"),
      llvm::cl::init(16)};
  Option<int64_t> cachePrefetchDistance{
      *this, "cache-prefetch-distance",
      llvm::cl::desc("Positions ahead that attention's block loops prefetch "
                     "the KV-cache rows they read (0: no prefetch)"),
      llvm::cl::init(32)};
  Option<bool> shareKernels{
      *this, "share-kernels",
      llvm::cl::desc("Each loop nest of the entries in a function of its "
                     "own, one function for equal ones: layers of equal "
                     "shapes share their code"),
      llvm::cl::init(true)};
  Option<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("Parallel loops with less work run on one thread"),
      llvm::cl::init(32768)};
};

/// tfm -> tfm: the kernel configurations (tfm-cpu-select-kernel-config)
/// and the CPU's weight layouts (tfm-cpu-pack-weights). The weights the
/// module declares afterwards are the blob's.
void buildCpuWeightLayoutPipeline(OpPassManager &pm,
                                  const CpuCodegenOptions &options);
/// tfm (weights laid out) -> linalg/vector on tensors: conversion, weights
/// bound to the blob, flash attention, micro-kernels, vector strips.
void buildCpuToLinalgPipeline(OpPassManager &pm,
                              const CpuCodegenOptions &options);
/// linalg on tensors -> LLVM dialect: bufferization with the bare-pointer
/// entry ABI of runtime/ModelABI.h, memory plan, OpenMP loops, LLVM.
void buildCpuToLLVMPipeline(OpPassManager &pm,
                            const CpuCodegenOptions &options);
/// All three: fused tfm -> LLVM dialect.
void buildCpuCodegenPipeline(OpPassManager &pm,
                             const CpuCodegenOptions &options);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_CPU_CPUPIPELINE_H
