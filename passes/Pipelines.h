//===- Pipelines.h - Registered tfm compilation pipelines -------*- C++ -*-===//
#ifndef TFMC_PASSES_PIPELINES_H
#define TFMC_PASSES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::tfm {

/// Options of the CPU pipeline and of each of its stages (a stage reads the
/// options that concern it). Every optimisation can be switched off here.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<int64_t> contextLength{
      *this, "context-length",
      llvm::cl::desc("KV-cache positions (0: the module's tfm.context_length)"),
      llvm::cl::init(0)};
  Option<int64_t> prefillChunk{*this, "prefill-chunk",
                               llvm::cl::desc("tokens per prefill call"),
                               llvm::cl::init(32)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Work-share parallel loops over threads with OpenMP"),
      llvm::cl::init(true)};
  Option<bool> fuseProjections{
      *this, "fuse-projections",
      llvm::cl::desc("Stack Q/K/V and gate/up weights into one GEMM each"),
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
  Option<bool> tileProjections{
      *this, "tile-projections",
      llvm::cl::desc("Register-blocked, vectorised projection kernels "
                     "(on packed weights)"),
      llvm::cl::init(true)};
  Option<int64_t> kernelAccumulators{
      *this, "kernel-accumulators",
      llvm::cl::desc("Accumulator vectors per projection micro-kernel (8 "
                     "for 32 vector registers, 4 for 16)"),
      llvm::cl::init(8)};
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Intermediates in one static arena planned at compile "
                     "time (no allocation per call)"),
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
  Option<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("Parallel loops with less work run on one thread"),
      llvm::cl::init(32768)};
};

/// tfm (full sequence) -> tfm (prefill + decode with a KV cache).
void buildTfmKVCachePipeline(OpPassManager &pm,
                             const CpuPipelineOptions &options);
/// tfm -> tfm: projection and attention fusion (tfm-fuse-qkv, tfm-fuse-ffn,
/// tfm-cpu-fuse-attention) and weight packing (tfm-cpu-pack-weights).
void buildTfmFusionPipeline(OpPassManager &pm,
                            const CpuPipelineOptions &options);
/// tfm -> tfm: the CPU's weight layouts (tfm-cpu-pack-weights). The
/// weights the module declares afterwards are the blob's.
void buildCpuWeightLayoutPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options);
/// tfm -> linalg/tensor/arith/math on tensors.
void buildTfmToLinalgPipeline(OpPassManager &pm,
                              const CpuPipelineOptions &options);
/// linalg on tensors -> LLVM dialect: bufferization with the bare-pointer
/// entry ABI of runtime/ModelABI.h, loops, LLVM.
void buildLinalgToLLVMPipeline(OpPassManager &pm,
                               const CpuPipelineOptions &options);
/// All of the above: tfm @forward -> LLVM dialect entries prefill/decode.
void buildTfmCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Registers `tfm-cpu-pipeline`, `tfm-fusion-pipeline`,
/// `tfm-to-linalg-pipeline` and `tfm-linalg-to-llvm-pipeline` for tfmc-opt.
void registerTfmPipelines();

} // namespace mlir::tfm

#endif // TFMC_PASSES_PIPELINES_H
