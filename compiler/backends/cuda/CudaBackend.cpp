//===- CudaBackend.cpp - tfmc --target=cuda -------------------------------===//
//
// fused tfm -> linalg -> kernels mapped to blocks/warps/threads (mapped) ->
// outlined kernels in NVVM (gpu) -> one fatbin and host code in the LLVM
// dialect (llvm) -> the host object, linked with libtfmrt_cuda.a. The
// weights are row-major, as the fused IR declares them, the matrices
// (projections, token tables, MoE routers and experts) in f16 or bf16
// where stored or asked so, projections in Q8_0 / Q4_0 blocks where
// stored or asked so (the configuration, tfm-gpu-select-weight-types);
// other block types are dequantized by the package writer.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/cuda/CudaBackend.h"

#include "compiler/backends/common/HostObject.h"
#include "compiler/backends/common/ObjectEmission.h"
#include "compiler/link/Toolchain.h"
#include "dialect/TfmContracts.h"
#include "runtime/PackageKeys.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"

#include "llvm/IR/GlobalVariable.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace tfmc;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

using Kind = BackendStage::Kind;
constexpr BackendStage kStages[] = {
    {"linalg", "linalg on tensors", Kind::Module},
    {"mapped",
     "kernels as foralls over blocks, warps and threads, on buffers (runs on "
     "a CPU)",
     Kind::Module},
    {"gpu",
     "outlined kernels in one gpu.module in NVVM, host code launching "
     "them",
     Kind::Module},
    {"llvm", "host code in the LLVM dialect with the kernels' fatbin",
     Kind::Module},
    {"llvm-ir", "the host object's LLVM IR", Kind::Artifact},
    {"asm", "the host object's assembly", Kind::Artifact},
    {"obj", "the host object", Kind::Artifact},
    {"ptx", "the PTX of every kernel, one file that ptxas assembles",
     Kind::Artifact},
};

/// The symbol of runtime/device/cuda/ that the host object refers to, so
/// that a link pulls the CUDA device (createCudaDevice, which the runtime
/// refers to weakly) out of libtfmrt_cuda.a with it.
constexpr const char *kRuntimeAnchor = "tfm_cuda_runtime_abi";

/// The host runs the launch code: any x86-64, not the build machine's CPU.
MachineDescription hostMachine() {
  return {llvm::sys::getProcessTriple(), "x86-64", ""};
}

void referToCudaRuntime(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  auto *abi = new llvm::GlobalVariable(
      module, llvm::Type::getInt32Ty(context), /*isConstant=*/true,
      llvm::GlobalValue::ExternalLinkage, nullptr, kRuntimeAnchor);
  auto *anchor = new llvm::GlobalVariable(
      module, llvm::PointerType::get(context, 0), /*isConstant=*/true,
      llvm::GlobalValue::InternalLinkage, abi, "tfm_cuda_runtime_anchor");
  llvm::appendToUsed(module, {anchor});
}

} // namespace

CudaBackend::CudaBackend()
    : codegenGroup("CUDA code generation (--target=cuda)", codegen),
      generatorGroup("Code generators (--target=cuda)", generators) {}

CudaBackend::~CudaBackend() {
  if (ptxPathIsTemporary)
    llvm::sys::fs::remove(ptxPath);
}

std::vector<mlir::tfm::OptionGroup *> CudaBackend::optionGroups() {
  return {&generatorGroup, &codegenGroup};
}

llvm::ArrayRef<BackendStage> CudaBackend::stages() const { return kStages; }

llvm::Expected<mlir::tfm::TargetAttr>
CudaBackend::describeTarget(mlir::MLIRContext &context) {
  auto halideKinds = halideKernelKinds(generators);
  if (!halideKinds)
    return halideKinds.takeError();
  // tfmc-halide-gen writes CUDA kernels (test/halide checks their PTX), but
  // nothing yet shares the CUDA backend's context, stream and buffers with
  // them.
  if (!halideKinds->empty())
    return makeError("Halide kernels are linked into --target=cpu binaries "
                     "only so far; with --target=cuda every kernel is "
                     "LLVM's (drop --backend=halide and --kernel-backend)");
  std::string arch = mlir::tfm::kernelArch(codegen);
  std::string cubins = codegen.cudaArch.empty() ? std::string("sm_90") : arch;
  // The attribute's verifier says what is wrong, once, as tfmc's error.
  std::string why;
  mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &d) {
    why = d.str();
    return mlir::success();
  });
  auto config = mlir::tfm::CudaTargetAttr::getChecked(
      [&] { return mlir::emitError(mlir::UnknownLoc::get(&context)); },
      &context, llvm::StringRef(arch), llvm::StringRef(cubins));
  if (!config)
    return makeError("--cuda-arch: " + why);
  // The cubins are assembled by the toolkit's programs: say what is
  // missing before any model work.
  for (const char *tool : {"ptxas", "fatbinary"}) {
    llvm::SmallString<128> path(codegen.cudaToolkit.getValue());
    llvm::sys::path::append(path, "bin", tool);
    if (!llvm::sys::fs::can_execute(path))
      return makeError("--target=cuda needs the CUDA toolkit's " +
                       llvm::Twine(tool) + ", not found at '" + path +
                       "' (install the toolkit, or name it with "
                       "--cuda-toolkit=DIR)");
  }
  return mlir::tfm::TargetAttr::get(&context, name(), config);
}

std::map<std::string, std::string>
CudaBackend::targetMetadata(mlir::tfm::TargetAttr target) const {
  mlir::tfm::CudaTargetAttr cuda = mlir::tfm::getCudaTarget(target);
  if (!cuda)
    return {};
  return {{tfm::rt::keys::kTargetCudaArch, cuda.getArch().str()},
          {tfm::rt::keys::kTargetCudaCubins, cuda.getCubins().str()}};
}

LinkInputs CudaBackend::linkInputs() const {
  // The driver API is opened with dlopen at run time.
  return LinkInputs{{"-ldl"}};
}

llvm::Error CudaBackend::buildConfigurationPipeline(mlir::OpPassManager &pm,
                                                    mlir::tfm::TargetAttr) {
  // The matrices' element types (--weights); the kernels' configs are
  // chosen on linalg (tfm-gpu-select-kernel-config, stage mapped), where
  // the kernels are.
  mlir::tfm::buildGpuConfigurationPipeline(pm, codegen);
  return llvm::Error::success();
}

llvm::Error CudaBackend::buildStagePipeline(llvm::StringRef stage,
                                            mlir::OpPassManager &pm) {
  if (stage == "linalg") {
    mlir::tfm::buildGpuLinalgPipeline(pm);
    return llvm::Error::success();
  }
  if (stage == "mapped") {
    mlir::tfm::buildGpuMappedPipeline(pm, codegen);
    return llvm::Error::success();
  }
  if (stage == "gpu") {
    mlir::tfm::buildGpuKernelsPipeline(pm, codegen);
    return llvm::Error::success();
  }
  if (stage == "llvm") {
    // The serialisation writes the PTX as it assembles it: to the user's
    // file, or to one of ours for --compile-to=ptx.
    mlir::tfm::GpuCodegenOptions host;
    host.copyOptionValuesFrom(codegen);
    if (codegen.ptxFile.empty() && ptxPath.empty()) {
      llvm::SmallString<128> path;
      if (std::error_code ec =
              llvm::sys::fs::createTemporaryFile("tfmc-kernels", "ptx", path))
        return makeError("cannot create a temporary file for the PTX: " +
                         ec.message());
      ptxPath = std::string(path);
      ptxPathIsTemporary = true;
    } else if (!codegen.ptxFile.empty()) {
      ptxPath = codegen.ptxFile;
    }
    host.ptxFile = ptxPath;
    mlir::tfm::buildGpuHostPipeline(pm, host);
    return llvm::Error::success();
  }
  return makeError("the cuda backend has no stage '" + stage + "' of passes");
}

llvm::Expected<std::unique_ptr<llvm::Module>>
CudaBackend::translate(mlir::ModuleOp module, const tfm_model_info &info,
                       llvm::LLVMContext &context) {
  // The gpu.binary and its launches: the fatbin embedded, loaded by a
  // constructor, launched through the mgpu* functions of libtfmrt_cuda.a.
  mlir::DialectRegistry registry;
  mlir::registerGPUDialectTranslation(registry);
  mlir::gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  module.getContext()->appendDialectRegistry(registry);
  // tfm_set_num_threads does nothing: the host code forks no threads.
  auto llvmModule =
      translateToHostModule(module, context, info, HostObjectOptions());
  if (!llvmModule)
    return llvmModule.takeError();
  referToCudaRuntime(**llvmModule);
  return llvmModule;
}

llvm::Error CudaBackend::serializeArtifact(llvm::StringRef stage,
                                           mlir::ModuleOp module,
                                           const tfm_model_info &info,
                                           const std::string &path) {
  if (stage == "ptx") {
    auto ptx = llvm::MemoryBuffer::getFile(ptxPath);
    if (!ptx)
      return makeError("cannot read the kernels' PTX '" + ptxPath +
                       "': " + ptx.getError().message());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return makeError("cannot open '" + path + "': " + ec.message());
    os << (*ptx)->getBuffer();
    return llvm::Error::success();
  }
  if (!mlir::tfm::getCudaTarget(mlir::tfm::getTarget(module)))
    return makeError("the module has no cuda #tfm.target");
  llvm::LLVMContext context;
  auto llvmModule = translate(module, info, context);
  if (!llvmModule)
    return llvmModule.takeError();
  return writeHostArtifact(**llvmModule, stage, path, hostMachine(), name());
}

llvm::Expected<ObjectSet>
CudaBackend::serializeObjects(mlir::ModuleOp module, const tfm_model_info &info,
                              const std::string &directory) {
  auto runtime = findRuntimeLibraries();
  if (!runtime)
    return runtime.takeError();
  std::string cudaRuntime = runtime->directory + "/libtfmrt_cuda.a";
  if (!llvm::sys::fs::exists(cudaRuntime))
    return makeError("cannot find the CUDA device runtime '" + cudaRuntime +
                     "'");
  llvm::SmallString<128> object(directory);
  llvm::sys::path::append(object, "tfmc_model.o");
  if (auto error = serializeArtifact("obj", module, info, std::string(object)))
    return std::move(error);
  return ObjectSet{{std::string(object)}, {cudaRuntime}};
}
