//===- Pipelines.h - Registered tfm compilation pipelines -------*- C++ -*-===//
//
// The target-independent phase (tfm @forward -> KV-cached, fused tfm) and the
// registration of every pipeline for tfmc-opt. Each target's code generation
// phase lives with its passes (Codegen/CPU/CpuPipeline.h).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_PIPELINES_H
#define TFMC_PASSES_PIPELINES_H

#include "passes/PipelineOptions.h"
#include "passes/Transforms/KVCacheType.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::tfm {

/// Options of the target-independent phase (tfmc's flags, and the
/// tfm-transform-pipeline's options).
struct TfmTransformOptions : public PhaseOptions<TfmTransformOptions> {
  Option<int64_t> contextLength{
      *this, "context",
      llvm::cl::desc("KV-cache positions (0: the model's context length, "
                     "which tfmc caps at 4096; tfmc accepts up to the "
                     "model's)"),
      llvm::cl::init(0)};
  Option<int64_t> prefillChunk{*this, "prefill-chunk",
                               llvm::cl::desc("tokens per prefill call"),
                               llvm::cl::init(32)};
  Option<int64_t> encodeMinRows{
      *this, "encode-min-rows",
      llvm::cl::desc("An encoder's shortest encode entry: entries of N, 4N, "
                     "16N, ... rows below the context as well, each call "
                     "running the shortest that holds its tokens (0: one "
                     "entry over the whole context; compile time grows with "
                     "each entry)"),
      llvm::cl::init(32)};
  Option<KVCacheType> kvCache{
      *this, "kv-cache",
      llvm::cl::desc("Element type of the KV cache: f32 or f16 (half the "
                     "bytes; keys and values rounded to f16)"),
      llvm::cl::init(KVCacheType::f32), kvCacheTypeValues()};
  Option<bool> fuseProjections{
      *this, "fuse-projections",
      llvm::cl::desc("Stack Q/K/V and gate/up weights into one GEMM each"),
      llvm::cl::init(true)};
};

/// tfm (full sequence) -> tfm (prefill + decode with a KV cache).
void buildTfmKVCachePipeline(OpPassManager &pm,
                             const TfmTransformOptions &options);
/// tfm -> tfm: Q/K/V and gate/up projection fusion.
void buildTfmFusionPipeline(OpPassManager &pm,
                            const TfmTransformOptions &options);
/// Both: tfm @forward -> fused prefill/decode.
void buildTfmTransformPipeline(OpPassManager &pm,
                               const TfmTransformOptions &options);

/// Registers `tfm-transform-pipeline`, `tfm-cpu-codegen-pipeline` and
/// `tfm-cpu-pipeline` (both phases; each option goes to the phase that
/// declares it) for tfmc-opt.
void registerTfmPipelines();

} // namespace mlir::tfm

#endif // TFMC_PASSES_PIPELINES_H
