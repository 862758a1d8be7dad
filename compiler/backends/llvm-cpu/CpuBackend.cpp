//===- CpuBackend.cpp - tfmc --target=cpu ---------------------------------===//
//
// fused tfm -> (tfm-cpu-pack-weights) laid-out weights -> linalg -> LLVM
// dialect -> LLVM IR -> object -> executable + package. The blob layout is
// taken once the weights are laid out, before tfm-cpu-bind-weights binds
// the code to it, so the package writer and the code read the same one.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/llvm-cpu/CpuBackend.h"

#include "compiler/backends/llvm-cpu/LLVMEmission.h"
#include "compiler/link/Link.h"
#include "compiler/weights/WeightLayout.h"
#include "dialect/TfmContracts.h"
#include "passes/Codegen/CPU/ByteQuadDot.h"
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"

using namespace tfmc;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

constexpr BackendStage kStages[] = {
    {"linalg", "linalg and vector ops on tensors (weights laid out and bound)"},
    {"llvm", "the LLVM dialect"},
    {"llvm-ir", "LLVM IR"},
    {"asm", "assembly"},
    {"obj", "an object file"},
};

/// The facts the runtime reads from `tfm_model`.
llvm::Expected<tfm_model_info>
modelInfo(mlir::ModuleOp module, const ModelSpec &spec,
          const mlir::tfm::WeightLayout &layout) {
  mlir::tfm::EntriesAttr entries = mlir::tfm::getEntries(module);
  tfm_model_info info{};
  info.abi_version = TFM_ABI_VERSION;
  info.vocab_size = uint32_t(spec.config.vocabSize);
  info.context_length = uint32_t(entries.getContextLength());
  info.weights_bytes = layout.totalBytes;
  info.weights_hash = layout.hash;
  info.hidden_size = uint32_t(spec.config.dim);
  if (entries.isEncoder()) {
    info.kind = TFM_KIND_ENCODER;
    info.encode_logits = spec.config.maskedLmHead ? 1 : 0;
    return info;
  }
  info.kind = TFM_KIND_DECODER;
  if (entries.isEncoderDecoder()) {
    info.kind = TFM_KIND_ENCODER_DECODER;
    info.decoder_start_token = uint32_t(spec.config.decoderStartToken);
  }
  auto decode = mlir::tfm::lookupEntry(module, entries.getDecode());
  std::optional<unsigned> cacheIndex =
      mlir::tfm::findEntryArg(decode, mlir::tfm::EntryArg::kv_cache);
  if (!cacheIndex)
    return makeError("the decode entry has no kv_cache argument");
  auto cacheType =
      mlir::cast<mlir::ShapedType>(decode.getArgumentTypes()[*cacheIndex]);
  info.prefill_chunk = uint32_t(entries.getPrefillChunk());
  info.cache_element_bytes = uint32_t(cacheType.getElementTypeBitWidth() / 8);
  info.cache_bytes =
      uint64_t(cacheType.getNumElements()) * info.cache_element_bytes;
  return info;
}

/// The scratch every entry point of the lowered `module` needs: the largest
/// that tfm-cpu-plan-memory gave one (its argument's dereferenceable bytes).
/// One buffer serves every entry, since a caller runs one at a time per
/// cache.
llvm::Expected<uint64_t> scratchBytes(mlir::ModuleOp module) {
  uint64_t bytes = 0;
  bool found = false;
  for (auto function : module.getOps<mlir::LLVM::LLVMFuncOp>()) {
    std::optional<unsigned> index =
        mlir::tfm::findEntryArg(function, mlir::tfm::EntryArg::scratch);
    if (!index)
      continue;
    found = true;
    if (auto size = function.getArgAttrOfType<mlir::IntegerAttr>(
            *index, mlir::LLVM::LLVMDialect::getDereferenceableAttrName()))
      bytes = std::max<uint64_t>(bytes, size.getInt());
  }
  if (!found)
    return makeError("the lowered module's entries have no scratch argument");
  return bytes;
}

} // namespace

CpuBackend::CpuBackend()
    : codegenGroup("CPU code generation (--target=cpu)", codegen),
      targetGroup("CPU target (--target=cpu)", target) {}

std::vector<mlir::tfm::OptionGroup *> CpuBackend::optionGroups() {
  return {&targetGroup, &codegenGroup};
}

llvm::ArrayRef<BackendStage> CpuBackend::stages() const { return kStages; }

llvm::Expected<mlir::tfm::TargetAttr>
CpuBackend::describeTarget(mlir::MLIRContext &context) {
  return describeCpuTarget(context, target.targetCpu);
}

LinkInputs CpuBackend::linkInputs() const {
  // Kernels work-share loops through the LLVM OpenMP runtime.
  LinkInputs inputs{
      {"-L" TFMC_OPENMP_LIB_DIR, "-lomp", "-Wl,-rpath," TFMC_OPENMP_LIB_DIR}};
  // Instrumented code calls the ThreadSanitizer runtime.
  if (target.sanitizeThread)
    inputs.arguments.push_back("-fsanitize=thread");
  return inputs;
}

llvm::Error CpuBackend::compile(BackendSession &session) {
  mlir::ModuleOp module = session.module();
  // Without --weights, each projection keeps the type the file stores its
  // matrix in (tfm.global_weight's `stored`, see tfm-cpu-pack-weights).
  mlir::tfm::CpuCodegenOptions layoutOptions;
  layoutOptions.copyOptionValuesFrom(codegen);
  if (!llvm::is_contained({"", "f32", "f16", "bf16", "q8_0", "q4_0"},
                          llvm::StringRef(layoutOptions.weights)))
    return makeError("unknown --weights '" + layoutOptions.weights +
                     "' (expected f32, f16, bf16, q8_0 or q4_0)");
  // Q8_0 projections take int8 inputs (the q8_0x4 panels) by default
  // where the target has a VNNI byte dot product (vpdpbusd), Q4_0 ones
  // where it has AVX2's vpmaddubsw, in the q4_0x4 panels where it has
  // VNNI too (docs/weight-types.md); --int8-inputs=false|true decides both
  // for any target.
  mlir::tfm::TargetAttr targetAttr = mlir::tfm::getTarget(module);
  if (!codegen.int8Inputs.hasValue())
    layoutOptions.int8Inputs = mlir::tfm::byteQuadDotLanes(targetAttr) != 0;
  if (!layoutOptions.packWeights && layoutOptions.weights != "" &&
      layoutOptions.weights != "f32")
    return makeError("--weights=" + layoutOptions.weights +
                     " stores the projection panels in that type and needs "
                     "--pack-weights");
  if (auto error = session.runPasses([&](mlir::OpPassManager &pm) {
        mlir::tfm::buildCpuWeightLayoutPipeline(pm, layoutOptions);
      }))
    return error;
  // The blob holds what the code reads (stacked and packed weights
  // included), in the order tfm-cpu-bind-weights binds it.
  mlir::tfm::WeightLayout layout = mlir::tfm::computeWeightLayout(module);
  auto info = modelInfo(module, session.model(), layout);
  if (!info)
    return info.takeError();

  mlir::tfm::CpuCodegenOptions codegenOptions;
  codegenOptions.copyOptionValuesFrom(codegen);
  if (!codegen.int8Inputs.hasValue())
    codegenOptions.int8Inputs =
        mlir::tfm::hasTargetFeature(targetAttr, "+avx2");
  if (auto error = session.runPasses([&](mlir::OpPassManager &pm) {
        mlir::tfm::buildCpuToLinalgPipeline(pm, codegenOptions);
      }))
    return error;
  if (session.stopsAfter("linalg"))
    return session.printModule();
  if (auto error = session.runPasses([&](mlir::OpPassManager &pm) {
        mlir::tfm::buildCpuToLLVMPipeline(pm, codegenOptions);
      }))
    return error;
  if (session.stopsAfter("llvm"))
    return session.printModule();
  auto scratch = scratchBytes(module);
  if (!scratch)
    return scratch.takeError();
  info->scratch_bytes = *scratch;
  info->scratch_alignment = mlir::tfm::kScratchAlignment;

  llvm::LLVMContext llvmContext;
  auto llvmModule = translateToModelIR(module, llvmContext, *info);
  if (!llvmModule)
    return llvmModule.takeError();
  std::string output =
      session.outputPath().empty() ? "-" : session.outputPath().str();
  if (session.stopsAfter("llvm-ir")) {
    std::error_code ec;
    llvm::raw_fd_ostream os(output, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return makeError("cannot open '" + output + "': " + ec.message());
    (*llvmModule)->print(os, nullptr);
    return llvm::Error::success();
  }
  if (session.stopsAfter("asm"))
    return emitMachineCode(**llvmModule, ObjectKind::Assembly, output,
                           targetAttr, target.sanitizeThread);
  if (session.stopsAfter("obj"))
    return emitMachineCode(**llvmModule, ObjectKind::Object, output, targetAttr,
                           target.sanitizeThread);

  if (session.outputPath().empty())
    return makeError(session.emitsLibrary()
                         ? "a library needs an output directory: pass -o DIR"
                         : "an executable needs an output path: pass -o FILE");
  llvm::SmallString<128> objectPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tfmc-model", "o", objectPath))
    return makeError("cannot create a temporary object file: " + ec.message());
  llvm::FileRemover removeObject(objectPath);
  if (auto error = emitMachineCode(**llvmModule, ObjectKind::Object,
                                   std::string(objectPath), targetAttr,
                                   target.sanitizeThread))
    return error;
  // The package is streamed from the mapped model file: free the IR first,
  // so that peak memory is the compile or the weights, not both.
  llvmModule->reset();
  session.releaseModule();
  if (session.emitsLibrary())
    return writeModelLibrary(std::string(objectPath), output, linkInputs(),
                             session.model(), layout);
  if (auto error =
          linkExecutable(std::string(objectPath), output, linkInputs()))
    return error;
  // An executable whose package failed half-way would only fail to start.
  llvm::FileRemover removeOutput(output);
  if (auto error = appendModelPackage(output, session.model(), layout))
    return error;
  removeOutput.releaseFile();
  return llvm::Error::success();
}
