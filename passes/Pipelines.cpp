//===- Pipelines.cpp - Registered tfm compilation pipelines ---------------===//
#include "passes/Pipelines.h"

#include "passes/Codegen/CPU/CpuPipeline.h"
#include "passes/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tfm;

void mlir::tfm::buildTfmKVCachePipeline(OpPassManager &pm,
                                        const TfmTransformOptions &options) {
  TfmKVCacheOptions kvOptions;
  kvOptions.contextLength = options.contextLength;
  kvOptions.prefillChunk = options.prefillChunk;
  kvOptions.kvCache = options.kvCache;
  kvOptions.encodeMinRows = options.encodeMinRows;
  pm.addPass(createTfmKVCache(kvOptions));
  pm.addPass(createCanonicalizerPass());
}

void mlir::tfm::buildTfmFusionPipeline(OpPassManager &pm,
                                       const TfmTransformOptions &options) {
  if (options.fuseProjections) {
    pm.addPass(createTfmFuseQKV());
    pm.addPass(createTfmFuseFFN());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tfm::buildTfmTransformPipeline(OpPassManager &pm,
                                          const TfmTransformOptions &options) {
  buildTfmKVCachePipeline(pm, options);
  buildTfmFusionPipeline(pm, options);
}

void mlir::tfm::registerTfmPipelines() {
  PassPipelineRegistration<TfmTransformOptions>(
      "tfm-transform-pipeline",
      "tfm @forward -> KV-cached, fused prefill/decode (target-independent)",
      buildTfmTransformPipeline);
  PassPipelineRegistration<CpuCodegenOptions>(
      "tfm-cpu-codegen-pipeline", "fused tfm -> LLVM dialect entries for CPUs",
      buildCpuCodegenPipeline);
  // Both phases behind one flag: each option goes to the phase declaring it.
  registerPassPipeline(
      "tfm-cpu-pipeline",
      "tfm @forward -> KV-cached prefill/decode in the LLVM dialect",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TfmTransformOptions transform;
        CpuCodegenOptions codegen;
        OptionGroupOf<TfmTransformOptions> transformGroup("transform",
                                                          transform);
        OptionGroupOf<CpuCodegenOptions> codegenGroup("cpu", codegen);
        std::string message;
        llvm::raw_string_ostream errors(message);
        if (failed(routeOptions(splitPipelineOptions(text),
                                {&transformGroup, &codegenGroup},
                                OptionSpelling::Pipeline,
                                /*unclaimed=*/nullptr, errors)))
          return errorHandler(message);
        buildTfmTransformPipeline(pm, transform);
        buildCpuCodegenPipeline(pm, codegen);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> printOptions) {
        TfmTransformOptions transform;
        CpuCodegenOptions codegen;
        printOptions(transform);
        printOptions(codegen);
      });
}
