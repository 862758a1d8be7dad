//===- Driver.cpp - The stages of `tfmc compile` --------------------------===//
//
// model file -> ModelSpec -> tfm @forward (stage tfm) -> prefill/decode
// (kv-cache) -> fused projections (fused), then the backend's configuration,
// its stages (e.g. the CPU's linalg, llvm), its artifacts (llvm-ir, asm,
// obj) or its objects, and the executable or library. Each arrow is a
// stage `--compile-to` can stop after; the driver runs every pipeline,
// prints or writes what a stage stops at, and owns the model's facts
// (tfm_model), the link and the package.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Driver.h"

#include "compiler/backends/common/ModelInfo.h"
#include "compiler/builders/ModelBuilder.h"
#include "compiler/driver/LoadModel.h"
#include "compiler/driver/NetworkIR.h"
#include "compiler/driver/Progress.h"
#include "compiler/link/Artifact.h"
#include "compiler/spec/RopeScaling.h"
#include "compiler/weights/WeightLayout.h"
#include "dialect/TfmContracts.h"
#include "models/Presets.h"
#include "models/Registry.h"
#include "runtime/PackageKeys.h"

#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <limits>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace tfmc;

namespace {

/// The context length without --context, for models that allow more.
constexpr int64_t kDefaultContextLength = 4096;

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfmc") << message << "\n";
  return 1;
}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

int fail(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  return fail(message);
}

/// The spec of the model (or, for IR, of the model --weights-from names).
llvm::Expected<ModelSpec> loadSpec(const DriverOptions &options,
                                   bool networkIR) {
  std::string source = networkIR ? options.weightsFrom : options.model;
  llvm::StringRef model(source);
  if (model.consume_front("preset:")) {
    if (!options.tokenizer.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--tokenizer does not apply to presets (they carry their own "
          "byte-level tokenizer)");
    return makePreset(model.str(), options.presetSeed);
  }
  return loadModel(source, options.tokenizer);
}

/// Refuses an output that would replace one of the compile's inputs: the
/// model file, the tokenizer, the weights a network IR reads, or a file of
/// a model directory that a loader reads (config.json, a safetensors
/// shard, ...). An output beside them under another name is fine.
llvm::Error checkNotAnInput(const DriverOptions &options) {
  namespace fs = llvm::sys::fs;
  llvm::StringRef path = options.output;
  if (!fs::exists(path))
    return llvm::Error::success();
  auto same = [&](llvm::StringRef input) {
    bool equivalent = false;
    return !input.empty() && !input.starts_with("preset:") &&
           !fs::equivalent(path, input, equivalent) && equivalent;
  };
  for (const std::string *input :
       {&options.model, &options.tokenizer, &options.weightsFrom})
    if (same(*input))
      return makeError("-o '" + path + "' is the input '" + *input +
                       "': writing it would destroy it; name another file");
  for (const std::string *input : {&options.model, &options.weightsFrom}) {
    if (input->empty() || !fs::is_directory(*input))
      continue;
    llvm::StringRef extension = llvm::sys::path::extension(path);
    bool modelFile =
        llvm::is_contained({".json", ".safetensors", ".model", ".txt", ".bin",
                            ".gguf", ".pt", ".pth"},
                           extension);
    llvm::SmallString<256> parent(path);
    llvm::sys::path::remove_filename(parent);
    if (parent.empty())
      parent = ".";
    bool inModel = false;
    if (modelFile && !fs::equivalent(parent, *input, inModel) && inModel)
      return makeError("-o '" + path + "' is a file of the model directory '" +
                       *input +
                       "': writing it would destroy it; name another file");
  }
  return llvm::Error::success();
}

/// The output's place, checked before a compile that may take minutes
/// rather than by the linker after it: an executable's path is not a
/// directory and a library's not a file, and the directory that will hold
/// it exists and is writable.
llvm::Error checkOutputPath(const DriverOptions &options) {
  namespace fs = llvm::sys::fs;
  llvm::StringRef path = options.output;
  bool finalOutput = options.stopAfter.empty();
  if (finalOutput && path.empty())
    return makeError(options.library
                         ? "a library needs an output directory: pass -o DIR"
                         : "an executable needs an output path: pass -o "
                           "FILE");
  if (path.empty() || path == "-")
    return llvm::Error::success();
  bool directory = finalOutput && options.library;
  if (fs::exists(path)) {
    if (directory && !fs::is_directory(path))
      return makeError("--emit=lib writes a directory, but '" + path +
                       "' is a file");
    if (!directory && fs::is_directory(path))
      return makeError("-o '" + path +
                       "' is a directory: name the file to write");
  }
  // A library's directory is created with its parents; a file's is not.
  llvm::SmallString<256> holder(path);
  do {
    llvm::sys::path::remove_filename(holder);
    if (holder.empty())
      holder = ".";
  } while (directory && !fs::exists(holder) && holder != ".");
  if (!fs::exists(holder))
    return makeError("cannot write '" + path + "': the directory '" + holder +
                     "' does not exist");
  if (!fs::is_directory(holder))
    return makeError("cannot write '" + path + "': '" + holder +
                     "' is not a directory");
  if (fs::access(holder, fs::AccessMode::Write))
    return makeError("cannot write '" + path + "': the directory '" + holder +
                     "' is not writable");
  return checkNotAnInput(options);
}

/// A directory of its own, removed with everything in it.
class TemporaryDirectory {
public:
  llvm::Error create(const llvm::Twine &prefix) {
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory(prefix, path_)) {
      llvm::SmallString<128> where;
      llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, where);
      return makeError(
          "cannot create a temporary directory in '" + where +
          "' (set TMPDIR to a writable directory): " + ec.message());
    }
    return llvm::Error::success();
  }
  ~TemporaryDirectory() {
    if (!path_.empty())
      llvm::sys::fs::remove_directories(path_);
  }
  std::string path() const { return std::string(path_); }

private:
  llvm::SmallString<128> path_;
};

class Compilation {
public:
  Compilation(const DriverOptions &options,
              const mlir::tfm::TfmTransformOptions &transform,
              TargetBackend &backend)
      : options(options), transform(transform), backend(backend),
        progress(options.progress, options.quiet) {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    registry.insert<mlir::tfm::TfmDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  int run() {
    // A wrong target is reported before any model work, at every stage.
    auto described = backend.describeTarget(context);
    if (!described)
      return fail(described.takeError());
    target = *described;
    if (llvm::Error error = checkOutputPath(options))
      return fail(std::move(error));
    bool networkIR = !llvm::StringRef(options.model).starts_with("preset:") &&
                     isNetworkIR(options.model);
    if (networkIR && options.weightsFrom.empty())
      return fail("'" + options.model +
                  "' is IR in the tfm dialect: pass --weights-from MODEL, "
                  "the model file or preset whose weights, tokenizer and "
                  "configuration it uses");
    if (!networkIR && !options.weightsFrom.empty())
      return fail("--weights-from applies to a .mlir network; '" +
                  options.model + "' is a model of its own");
    if (networkIR && transform.contextLength != 0)
      return fail("--context does not apply to IR: its #tfm.model fixes the "
                  "context length");
    auto loaded = loadSpec(options, networkIR);
    if (!loaded)
      return fail(loaded.takeError());
    spec = std::move(*loaded);
    if (llvm::Error error = verifyModelSpec(spec))
      return fail(std::move(error));
    progress.step("read " + (networkIR ? options.weightsFrom : options.model));
    if (options.stopAfter.empty() && spec.tokenizer.kind.empty())
      return fail("model '" + options.model +
                  "' has no tokenizer: pass --tokenizer FILE");
    int64_t contextLength = spec.config.contextLength;
    if (transform.contextLength < 0)
      return fail("--context must be positive");
    if (transform.contextLength > 0) {
      if (transform.contextLength > contextLength)
        return fail("--context " + llvm::Twine(transform.contextLength) +
                    " exceeds the model's context length of " +
                    llvm::Twine(contextLength));
      contextLength = transform.contextLength;
    } else if (llvm::Error error = checkCacheSize(contextLength)) {
      // A context no cache could hold is a broken or hostile file, capped
      // or not.
      return fail(std::move(error));
    } else if (!networkIR && contextLength > kDefaultContextLength) {
      // Qwen2.5's 131072 positions would be a KV cache of gigabytes that
      // few prompts use: the default stops at a size every machine holds.
      llvm::WithColor::note(llvm::errs(), "tfmc")
          << "the KV cache holds " << kDefaultContextLength
          << " positions of the model's " << contextLength
          << "; pass --context N for up to " << contextLength << "\n";
      contextLength = kDefaultContextLength;
    }
    // Scalings that change with the sequence are exact only up to their
    // original context, which the network's context must then stay within.
    if (spec.config.position == PositionKind::Rope)
      if (std::optional<std::string> why = checkRopeScaling(
              spec.config.ropeScaling, spec.config.attention.rotatedFeatures(),
              spec.config.ropeTheta, contextLength))
        return fail("RoPE scaling '" +
                    llvm::Twine(ropeScalingName(spec.config.ropeScaling.kind)) +
                    "' in " + spec.description + ": " + *why);
    if (transform.kvCache != mlir::tfm::KVCacheType::f32 &&
        spec.config.kind == ModelKind::EncoderOnly)
      return fail(
          "--kv-cache=" + mlir::tfm::kvCacheTypeName(transform.kvCache) +
          ": '" + options.model + "' is an encoder, which has no KV cache");
    if (llvm::Error error = checkCacheSize(contextLength))
      return fail(std::move(error));
    if (transform.prefillChunk <= 0)
      return fail("--prefill-chunk must be positive");
    if (transform.encodeMinRows < 0)
      return fail("--encode-min-rows must be >= 0 (0: one encode entry over "
                  "the whole context)");
    int64_t chunk = std::min<int64_t>(transform.prefillChunk, contextLength);
    const ModelFamily *family = findFamily(spec.family);
    if (!family)
      return fail("no model family '" + spec.family + "'");
    auto built =
        buildModel(context, spec, chunk, contextLength,
                   [&](NetworkBuilder &net) { family->buildGraph(net); });
    if (!built)
      return fail(built.takeError());
    ir = std::move(*built);
    if (mlir::failed(mlir::verify(*ir)))
      return fail("the network built for '" + options.model +
                  "' does not verify");
    // IR replaces the network tfmc built, which says how the weights'
    // model declares its weights.
    if (networkIR) {
      auto read =
          readNetworkIR(context, options.model, *ir, options.weightsFrom);
      if (!read)
        return fail(read.takeError());
      ir = std::move(*read);
    }
    progress.step(networkIR ? "read " + options.model : "stage tfm");
    if (stopsAfter("tfm"))
      return finish(printModule());

    if (auto error = runPasses([&](mlir::OpPassManager &pm) {
          mlir::tfm::buildTfmKVCachePipeline(pm, transform);
        }))
      return fail(std::move(error));
    progress.step("stage kv-cache");
    if (stopsAfter("kv-cache"))
      return finish(printModule());
    if (auto error = runPasses([&](mlir::OpPassManager &pm) {
          mlir::tfm::buildTfmFusionPipeline(pm, transform);
        }))
      return fail(std::move(error));
    progress.step("stage fused");
    if (stopsAfter("fused"))
      return finish(printModule());

    // From here on the target decides: its passes read #tfm.target.
    mlir::tfm::setTarget(*ir, target);
    return finish(compileForTarget());
  }

  /// The backend's configuration, stages and serialisation, then the
  /// artifact.
  llvm::Error compileForTarget() {
    if (auto error = runBackendPasses([&](mlir::OpPassManager &pm) {
          return backend.buildConfigurationPipeline(pm, target);
        }))
      return error;
    progress.step("target configuration");
    // The blob holds what the code reads (stacked and packed weights
    // included), in the order the backend's stages will bind it to.
    layout = mlir::tfm::computeWeightLayout(*ir);
    auto info = describeModel(*ir, spec, layout, backend.device());
    if (!info)
      return info.takeError();
    for (const BackendStage &stage : backend.stages()) {
      if (stage.kind != BackendStage::Kind::Module)
        continue;
      if (auto error = runBackendPasses([&](mlir::OpPassManager &pm) {
            return backend.buildStagePipeline(stage.name, pm);
          }))
        return error;
      progress.step(llvm::Twine("stage ") + stage.name);
      if (stopsAfter(stage.name))
        return printModule();
    }
    if (auto error = describeScratch(*ir, *info))
      return error;
    // tfmc.cpp accepted the name: one of the backend's artifacts.
    if (!options.stopAfter.empty())
      return backend.serializeArtifact(options.stopAfter, *ir, *info,
                                       options.output.empty() ? "-"
                                                              : options.output);
    return writeOutput(*info);
  }

  /// The rows of the encode entries (encode buckets, then the context),
  /// comma-separated, for the package: none without an encode entry.
  std::optional<std::string> encodeRows() {
    mlir::tfm::EntriesAttr entries = mlir::tfm::getEntries(*ir);
    if (!entries || !entries.getEncode())
      return std::nullopt;
    std::string rows;
    for (mlir::tfm::EncodeBucketAttr bucket : entries.getEncodeBucketList())
      rows += std::to_string(bucket.getRows()) + ",";
    return rows + std::to_string(entries.getContextLength());
  }

  /// The model's objects, then the executable or the library.
  llvm::Error writeOutput(const tfm_model_info &info) {
    TemporaryDirectory objects;
    if (auto error = objects.create("tfmc-objects"))
      return error;
    auto code = backend.serializeObjects(*ir, info, objects.path());
    if (!code)
      return code.takeError();
    progress.step("code generation");
    tfm::rt::PackageMetadata metadata = backend.targetMetadata(target);
    if (std::optional<std::string> rows = encodeRows())
      metadata[tfm::rt::keys::kEncodeRows] = *rows;
    // The package is streamed from the mapped model file: free the IR first,
    // so that peak memory is the compile or the weights, not both.
    releaseModule();
    if (auto error = writeArtifact(
            options.library ? ArtifactKind::Library : ArtifactKind::Executable,
            options.output, *code, backend.linkInputs(), spec, layout, metadata,
            {options.randomWeights ? std::optional(options.presetSeed)
                                   : std::nullopt,
             [&](uint64_t written, uint64_t total) {
               progress.bytes("writing weights", written, total);
             }}))
      return error;
    progress.step(options.library ? "library and package" : "link and package");
    progress.wrote(options.output);
    return llvm::Error::success();
  }

  /// The KV cache (keys and values of every layer) for `positions`
  /// must be addressable and plausible; sizes from a model file are
  /// untrusted (a context of 2^58 wrapped to a 4 KiB cache).
  llvm::Error checkCacheSize(int64_t positions) const {
    constexpr int64_t kMaxCacheBytes = int64_t(1) << 40;
    const DecoderConfig &c = spec.config;
    if (positions > std::numeric_limits<int32_t>::max())
      return makeError("the context length of " + llvm::Twine(positions) +
                       " positions is above tfmc's limit of " +
                       llvm::Twine(std::numeric_limits<int32_t>::max()) +
                       ": pass --context with fewer positions");
    int64_t bytes = 2 * mlir::tfm::kvCacheElementBytes(transform.kvCache);
    bool overflow = false;
    for (int64_t factor :
         {c.numLayers, c.attention.numKVHeads, c.attention.headDim, positions})
      overflow = overflow || llvm::MulOverflow(bytes, factor, bytes);
    if (overflow || bytes > kMaxCacheBytes)
      return makeError("the KV cache for the context length of " +
                       llvm::Twine(positions) + " positions would be " +
                       (overflow ? std::string("beyond 64-bit sizes")
                                 : std::to_string(bytes >> 30) + " GiB") +
                       ", above tfmc's limit of 1 TiB: pass --context with "
                       "fewer positions");
    return llvm::Error::success();
  }

  bool stopsAfter(llvm::StringRef stage) const {
    return options.stopAfter == stage;
  }

  /// Frees the module and returns the freed heap to the system.
  void releaseModule() {
    ir = nullptr;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
  }

  /// Prints the module to the output (the result of an IR stage).
  llvm::Error printModule() {
    std::string path = options.output.empty() ? "-" : options.output;
    std::string error;
    auto out = mlir::openOutputFile(path, &error);
    if (!out)
      return makeError(error);
    ir->print(out->os());
    out->os() << "\n";
    out->keep();
    return llvm::Error::success();
  }

  /// Runs the passes `build` adds, with the user's pass-manager flags
  /// (--mlir-print-ir-after-all, --mlir-timing, ...).
  llvm::Error runPasses(llvm::function_ref<void(mlir::OpPassManager &)> build) {
    return runBackendPasses([&](mlir::OpPassManager &pm) {
      build(pm);
      return llvm::Error::success();
    });
  }
  /// Runs the passes of a backend's builder, which may fail (an option
  /// that does not apply).
  llvm::Error runBackendPasses(
      llvm::function_ref<llvm::Error(mlir::OpPassManager &)> build) {
    mlir::PassManager pm(&context);
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return makeError("invalid pass manager options");
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
    if (auto error = build(pm))
      return error;
    if (mlir::failed(pm.run(*ir)))
      return makeError("compilation of '" + options.model + "' failed");
    return llvm::Error::success();
  }

private:
  int finish(llvm::Error error) {
    if (error)
      return fail(std::move(error));
    return 0;
  }

  const DriverOptions &options;
  const mlir::tfm::TfmTransformOptions &transform;
  TargetBackend &backend;
  mlir::MLIRContext context;
  mlir::tfm::TargetAttr target;
  ModelSpec spec;
  mlir::OwningOpRef<mlir::ModuleOp> ir; ///< the module being compiled
  mlir::tfm::WeightLayout layout;       ///< the blob the package holds
  Progress progress;
};

} // namespace

std::vector<std::string> tfmc::stageNames(const TargetBackend &backend) {
  std::vector<std::string> names(std::begin(kNetworkStages),
                                 std::end(kNetworkStages));
  for (const BackendStage &stage : backend.stages())
    names.push_back(stage.name);
  return names;
}

int tfmc::runCompile(const DriverOptions &options,
                     const mlir::tfm::TfmTransformOptions &transform,
                     TargetBackend &backend) {
  return Compilation(options, transform, backend).run();
}
