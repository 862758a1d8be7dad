//===- Driver.cpp - The stages of `tfmc compile` ---------------------------===//
//
// model file -> ModelSpec -> tfm @forward -> prefill/decode -> linalg ->
// LLVM dialect -> LLVM IR -> object -> linked executable + package. Each
// arrow is a stage `--compile-to` can stop after.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Driver.h"

#include "compiler/backends/llvm/LLVMBackend.h"
#include "compiler/builders/ModelBuilder.h"
#include "compiler/driver/LoadModel.h"
#include "compiler/link/Link.h"
#include "compiler/weights/WeightLayout.h"
#include "dialect/TfmOps.h"
#include "models/Presets.h"
#include "models/Registry.h"
#include "passes/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace tfmc;

std::optional<Stage> tfmc::parseStage(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Stage>>(name)
      .Case("tfm", Stage::Tfm)
      .Case("kv-cache", Stage::KVCache)
      .Case("fused", Stage::Fused)
      .Case("linalg", Stage::Linalg)
      .Case("llvm", Stage::LLVM)
      .Case("llvm-ir", Stage::LLVMIR)
      .Case("asm", Stage::Asm)
      .Case("obj", Stage::Obj)
      .Default(std::nullopt);
}

namespace {

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfmc") << message << "\n";
  return 1;
}

int fail(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  return fail(message);
}

/// Writes `print` to the -o file or stdout.
template <typename PrintFn>
int emitText(const CompileOptions &options, PrintFn print) {
  std::string path = options.output.empty() ? "-" : options.output;
  std::string error;
  auto out = mlir::openOutputFile(path, &error);
  if (!out)
    return fail(error);
  print(out->os());
  out->keep();
  return 0;
}

llvm::Expected<ModelSpec> loadSpec(const CompileOptions &options) {
  llvm::StringRef model(options.model);
  if (model.consume_front("preset:")) {
    if (!options.tokenizer.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--tokenizer does not apply to presets (they carry their own "
          "byte-level tokenizer)");
    return makePreset(model.str(), options.presetSeed);
  }
  return loadModel(options.model, options.tokenizer);
}

/// The facts the runtime reads from `tfm_model`.
tfm_model_info modelInfo(mlir::ModuleOp kvModule, const ModelSpec &spec,
                         const mlir::tfm::WeightLayout &layout,
                         int64_t context) {
  tfm_model_info info{};
  info.abi_version = TFM_ABI_VERSION;
  info.vocab_size = uint32_t(spec.config.vocabSize);
  info.context_length = uint32_t(context);
  if (auto chunk = kvModule->getAttrOfType<mlir::IntegerAttr>(
          "tfm.prefill_chunk"))
    info.prefill_chunk = uint32_t(chunk.getInt());
  auto decode = kvModule.lookupSymbol<mlir::func::FuncOp>("decode");
  auto cacheType =
      mlir::cast<mlir::RankedTensorType>(decode.getArgumentTypes()[2]);
  info.cache_floats = uint64_t(cacheType.getNumElements());
  info.weights_bytes = layout.totalBytes;
  info.weights_hash = layout.hash;
  return info;
}

class Compilation {
public:
  explicit Compilation(const CompileOptions &options) : options(options) {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    registry.insert<mlir::tfm::TfmDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  int run() {
    auto spec = loadSpec(options);
    if (!spec)
      return fail(spec.takeError());
    if (llvm::Error error = verifyModelSpec(*spec))
      return fail(std::move(error));
    if (options.stage == Stage::Executable && spec->tokenizer.kind.empty())
      return fail("model '" + options.model +
                  "' has no tokenizer: pass --tokenizer FILE");

    int64_t contextLength = spec->config.contextLength;
    if (options.contextLength > 0) {
      if (options.contextLength > contextLength)
        return fail("--context " + llvm::Twine(options.contextLength) +
                    " exceeds the model's context length of " +
                    llvm::Twine(contextLength));
      contextLength = options.contextLength;
    }
    int64_t chunk = std::min(options.prefillChunk, contextLength);
    const ModelFamily *family = findFamily(spec->family);
    if (!family)
      return fail("no model family '" + spec->family + "'");
    auto built =
        buildModel(context, *spec, chunk, contextLength,
                   [&](NetworkBuilder &net) { family->buildGraph(net); });
    if (!built)
      return fail(built.takeError());
    module = std::move(*built);
    if (mlir::failed(mlir::verify(*module)))
      return fail("the network built for '" + options.model +
                  "' does not verify");
    if (options.stage == Stage::Tfm)
      return printModule();

    mlir::tfm::CpuPipelineOptions pipeline;
    pipeline.contextLength = contextLength;
    pipeline.prefillChunk = options.prefillChunk;
    pipeline.fuseProjections = options.fuseProjections;
    pipeline.fuseAttention = options.fuseAttention;
    pipeline.approximateMath = options.approximateMath;
    pipeline.packWeights = options.packWeights;
    pipeline.tileProjections = options.tileProjections;
    pipeline.planMemory = options.planMemory;
    pipeline.fuseElementwise = options.fuseElementwise;
    pipeline.parallel = options.parallel;
    pipeline.promoteAccumulators = options.promoteAccumulators;
    pipeline.prefetchWeights = options.prefetchWeights;
    pipeline.fuseEpilogues = options.fuseEpilogues;
    pipeline.vectorizeElementwise = options.vectorizeElementwise;
    pipeline.streamPrefetchDistance = options.streamPrefetchDistance;
    pipeline.cachePrefetchDistance = options.cachePrefetchDistance;
    pipeline.minParallelWork = options.minParallelWork;
    // A 16-lane panel row is one AVX-512 register (8 rows of accumulators
    // leave 24 of 32 registers busy) but two AVX2 ones (4 rows: 8 of 16).
    auto registers = vectorRegisterCount(options.targetCpu);
    if (!registers)
      return fail(registers.takeError());
    pipeline.kernelAccumulators = *registers >= 32 ? 8 : 4;
    if (int rc = runPipeline([&](mlir::OpPassManager &pm) {
          mlir::tfm::buildTfmKVCachePipeline(pm, pipeline);
        }))
      return rc;
    if (options.stage == Stage::KVCache)
      return printModule();

    if (int rc = runPipeline([&](mlir::OpPassManager &pm) {
          mlir::tfm::buildTfmFusionPipeline(pm, pipeline);
        }))
      return rc;
    if (options.stage == Stage::Fused)
      return printModule();
    // The blob holds what the optimised network reads (stacked weights
    // included), in the order the lowering will bind it.
    mlir::tfm::WeightLayout layout = mlir::tfm::computeWeightLayout(*module);
    tfm_model_info info = modelInfo(*module, *spec, layout, contextLength);

    if (int rc = runPipeline([&](mlir::OpPassManager &pm) {
          mlir::tfm::buildTfmToLinalgPipeline(pm, pipeline);
        }))
      return rc;
    if (options.stage == Stage::Linalg)
      return printModule();

    if (int rc = runPipeline([&](mlir::OpPassManager &pm) {
          mlir::tfm::buildLinalgToLLVMPipeline(pm, pipeline);
        }))
      return rc;
    if (options.stage == Stage::LLVM)
      return printModule();

    llvm::LLVMContext llvmContext;
    auto llvmModule = translateToModelIR(*module, llvmContext, info);
    if (!llvmModule)
      return fail(llvmModule.takeError());
    if (options.stage == Stage::LLVMIR)
      return emitText(options,
                      [&](llvm::raw_ostream &os) { (*llvmModule)->print(os, nullptr); });
    if (options.stage == Stage::Asm || options.stage == Stage::Obj) {
      std::string path = options.output.empty() ? "-" : options.output;
      ObjectKind kind =
          options.stage == Stage::Asm ? ObjectKind::Assembly : ObjectKind::Object;
      if (llvm::Error error =
              emitMachineCode(**llvmModule, kind, path, options.targetCpu))
        return fail(std::move(error));
      return 0;
    }
    return produceExecutable(std::move(*llvmModule), *spec, layout);
  }

private:
  int printModule() {
    return emitText(options, [&](llvm::raw_ostream &os) {
      module->print(os);
      os << "\n";
    });
  }

  int runPipeline(llvm::function_ref<void(mlir::OpPassManager &)> build) {
    mlir::PassManager pm(&context);
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return fail("invalid pass manager options");
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
    build(pm);
    if (mlir::failed(pm.run(*module)))
      return fail("compilation of '" + options.model + "' failed");
    return 0;
  }

  int produceExecutable(std::unique_ptr<llvm::Module> llvmModule,
                        const ModelSpec &spec,
                        const mlir::tfm::WeightLayout &layout) {
    if (options.output.empty())
      return fail("an executable needs an output path: pass -o FILE");
    llvm::SmallString<128> objectPath;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "tfmc-model", "o", objectPath))
      return fail("cannot create a temporary object file: " + ec.message());
    llvm::FileRemover removeObject(objectPath);
    if (llvm::Error error =
            emitMachineCode(*llvmModule, ObjectKind::Object,
                            std::string(objectPath), options.targetCpu))
      return fail(std::move(error));
    // The package is streamed from the mapped model file: free the IR (and
    // hand glibc's freed heap back) first, so that peak memory is the
    // compile or the weights, not both.
    llvmModule.reset();
    module = nullptr;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    if (llvm::Error error =
            linkExecutable(std::string(objectPath), options.output))
      return fail(std::move(error));
    // An executable whose package failed half-way would only fail to start.
    llvm::FileRemover removeOutput(options.output);
    if (llvm::Error error =
            appendModelPackage(options.output, spec, layout))
      return fail(std::move(error));
    removeOutput.releaseFile();
    return 0;
  }

  const CompileOptions &options;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace

int tfmc::runCompile(const CompileOptions &options) {
  return Compilation(options).run();
}
