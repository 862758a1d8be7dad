//===- SerializeKernels.cpp - PTX and cubins of each kernel module --------===//
//
// Upstream gpu-module-to-binary gives a module one object per target, and
// #gpu.select_object embeds one of them, chosen at compile time. A binary
// that runs on the GPU it finds needs the PTX (which the driver compiles
// for any newer GPU) and the cubins of the GPUs it was tuned for in one
// image: a CUDA fatbin, from which cuModuleLoadData picks the cubin of the
// device's arch or else compiles the PTX.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMGPUSERIALIZEKERNELS
#include "passes/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// A temporary file removed when the object goes.
class TempFile {
public:
  static FailureOr<TempFile> create(StringRef suffix) {
    SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("tfmc-kernel", suffix, path))
      return failure();
    return TempFile(path.str().str());
  }
  TempFile(TempFile &&other) : path(std::move(other.path)) {
    other.path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  StringRef getPath() const { return path; }

private:
  explicit TempFile(std::string path) : path(std::move(path)) {}
  std::string path;
};

/// `sm_90` -> `90`.
StringRef archNumber(StringRef arch) { return arch.drop_front(3); }

class Serializer {
public:
  Serializer(gpu::GPUModuleOp module, StringRef toolkit, StringRef features)
      : module(module), toolkit(toolkit), features(features) {}

  /// The module compiled for `arch` as PTX text or a cubin.
  FailureOr<SmallVector<char, 0>> compile(StringRef arch, bool cubin) {
    MLIRContext *context = module.getContext();
    auto target = NVVM::NVVMTargetAttr::get(
        context, /*optLevel=*/3, "nvptx64-nvidia-cuda", arch, features);
    gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                               /*cmdOptions=*/"",
                               /*elfSection=*/"",
                               cubin ? gpu::CompilationTarget::Binary
                                     : gpu::CompilationTarget::Assembly);
    auto interface = cast<gpu::TargetAttrInterface>(target);
    std::optional<SmallVector<char, 0>> object =
        interface.serializeToObject(module, options);
    if (!object) {
      module.emitError() << "could not compile the kernels for " << arch
                         << (cubin ? " to a cubin (is ptxas in " + toolkit +
                                         "/bin?)"
                                   : std::string(" to PTX"));
      return failure();
    }
    return std::move(*object);
  }

  /// One fatbin of the PTX of `ptx` and the cubins of `cubin`.
  FailureOr<std::string> fatbin(ArrayRef<std::string> ptx,
                                ArrayRef<std::string> cubin) {
    SmallString<128> tool(toolkit);
    llvm::sys::path::append(tool, "bin", "fatbinary");
    if (!llvm::sys::fs::can_execute(tool)) {
      module.emitError() << "cubins need the CUDA toolkit's fatbinary, not "
                            "found at "
                         << tool;
      return failure();
    }
    std::vector<TempFile> files;
    std::vector<std::string> arguments = {tool.str().str(), "-64"};
    auto add = [&](StringRef arch, bool isCubin) -> LogicalResult {
      FailureOr<SmallVector<char, 0>> image = compile(arch, isCubin);
      if (failed(image))
        return failure();
      FailureOr<TempFile> file = TempFile::create(isCubin ? "cubin" : "ptx");
      if (failed(file))
        return module.emitError() << "could not create a temporary file";
      std::error_code error;
      llvm::raw_fd_ostream out(file->getPath(), error);
      if (error)
        return module.emitError() << "could not write " << file->getPath();
      // PTX text ends at its terminating NUL for the driver; not in a file.
      StringRef bytes(image->data(), image->size());
      if (!isCubin)
        bytes = bytes.rtrim('\0');
      out << bytes;
      out.close();
      arguments.push_back((Twine("--image3=kind=") + (isCubin ? "elf" : "ptx") +
                           ",sm=" + archNumber(arch) +
                           ",file=" + file->getPath())
                              .str());
      files.push_back(std::move(*file));
      return success();
    };
    for (const std::string &arch : ptx)
      if (failed(add(arch, /*isCubin=*/false)))
        return failure();
    for (const std::string &arch : cubin)
      if (failed(add(arch, /*isCubin=*/true)))
        return failure();
    FailureOr<TempFile> output = TempFile::create("fatbin");
    if (failed(output))
      return module.emitError() << "could not create a temporary file";
    arguments.push_back(("--create=" + output->getPath()).str());
    SmallVector<StringRef> argv(arguments.begin(), arguments.end());
    std::string message;
    int status =
        llvm::sys::ExecuteAndWait(tool, argv, std::nullopt, {}, 0, 0, &message);
    if (status != 0) {
      module.emitError() << "fatbinary failed (" << status << "): " << message;
      return failure();
    }
    auto buffer = llvm::MemoryBuffer::getFile(output->getPath());
    if (!buffer)
      return module.emitError() << "could not read " << output->getPath();
    return (*buffer)->getBuffer().str();
  }

private:
  gpu::GPUModuleOp module;
  std::string toolkit, features;
};

bool validArch(StringRef arch) {
  return arch.starts_with("sm_") && arch.size() >= 5 &&
         llvm::all_of(arch.drop_front(3), llvm::isDigit);
}

struct TfmGpuSerializeKernels
    : mlir::tfm::impl::TfmGpuSerializeKernelsBase<TfmGpuSerializeKernels> {
  using Base::Base;

  // The kernels are translated to LLVM IR and compiled by the NVVM target.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    registerBuiltinDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
  }

  /// Writes the PTX of the one kernel module for `arch` to ptx-file.
  LogicalResult writePtx(ModuleOp module, StringRef arch) {
    auto modules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (modules.size() != 1)
      return module.emitError()
             << "ptx-file writes one module's PTX, but there are "
             << modules.size()
             << " gpu.modules (run tfm-gpu-merge-kernel-modules first)";
    Serializer serializer(modules.front(), toolkit, ptxVersion);
    FailureOr<SmallVector<char, 0>> text =
        serializer.compile(arch, /*cubin=*/false);
    if (failed(text))
      return failure();
    std::error_code error;
    llvm::raw_fd_ostream out(ptxFile, error);
    if (error)
      return module.emitError()
             << "could not write " << ptxFile << ": " << error.message();
    out << StringRef(text->data(), text->size()).rtrim('\0');
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::string> ptxArchs(ptx.begin(), ptx.end());
    SmallVector<std::string> cubinArchs(cubin.begin(), cubin.end());
    if (ptxArchs.empty() && cubinArchs.empty())
      ptxArchs.push_back("sm_80");
    for (const std::string &arch :
         llvm::concat<std::string>(ptxArchs, cubinArchs))
      if (!validArch(arch)) {
        module.emitError() << "invalid GPU arch '" << arch
                           << "' (expected sm_NN)";
        return signalPassFailure();
      }
    MLIRContext *context = &getContext();
    if (!ptxFile.empty() &&
        failed(writePtx(module, ptxArchs.empty() ? cubinArchs.front()
                                                 : ptxArchs.front())))
      return signalPassFailure();
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      Serializer serializer(gpuModule, toolkit, ptxVersion);
      // The oldest arch names the object: the binary runs on it or newer.
      std::string oldest =
          ptxArchs.empty() ? cubinArchs.front() : ptxArchs.front();
      auto target = NVVM::NVVMTargetAttr::get(context, 3, "nvptx64-nvidia-cuda",
                                              oldest, ptxVersion);
      gpu::ObjectAttr object;
      if (cubinArchs.empty()) {
        // PTX only: embedded as text, compiled by the driver at load.
        FailureOr<SmallVector<char, 0>> text =
            serializer.compile(ptxArchs.front(), /*cubin=*/false);
        if (failed(text))
          return signalPassFailure();
        object = gpu::ObjectAttr::get(
            context, target, gpu::CompilationTarget::Assembly,
            StringAttr::get(context, StringRef(text->data(), text->size())),
            nullptr, nullptr);
      } else {
        FailureOr<std::string> image = serializer.fatbin(ptxArchs, cubinArchs);
        if (failed(image))
          return signalPassFailure();
        object = gpu::ObjectAttr::get(
            context, target, gpu::CompilationTarget::Fatbin,
            StringAttr::get(context, *image), nullptr, nullptr);
      }
      OpBuilder builder(gpuModule);
      gpu::BinaryOp::create(builder, gpuModule.getLoc(), gpuModule.getName(),
                            /*offloadingHandler=*/nullptr,
                            builder.getArrayAttr({object}));
      gpuModule.erase();
    }
  }
};

} // namespace
