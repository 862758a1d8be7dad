//===- HalideKernels.cpp - A module's Halide kernels as objects -----------===//
#include "compiler/backends/halide/HalideKernels.h"

#include "compiler/backends/halide/KernelDescription.h"
#include "compiler/link/Toolchain.h"
#include "passes/Codegen/Halide/IR/TfmHalideOps.h"

#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

using namespace tfmc;

namespace {

/// The module attribute tfm-halide-lower-calls writes.
constexpr llvm::StringLiteral kKernelsAttr =
    mlir::tfm::halide::TfmHalideDialect::kKernelsAttrName;

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The module's kernel descriptions, in name order.
llvm::Expected<std::vector<halide::KernelDescription>>
kernelsOf(mlir::ModuleOp module) {
  std::vector<halide::KernelDescription> kernels;
  auto dictionary = module->getAttrOfType<mlir::DictionaryAttr>(kKernelsAttr);
  if (!dictionary)
    return kernels;
  for (mlir::NamedAttribute entry : dictionary) {
    auto json = llvm::dyn_cast<mlir::StringAttr>(entry.getValue());
    std::string error;
    if (!json ||
        !halide::parseKernelDescriptions(json.getValue().str(), kernels, error))
      return makeError("the module's Halide kernel '" +
                       entry.getName().getValue() +
                       "' has no valid description: " + error);
  }
  return kernels;
}

llvm::Error writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  os << text;
  return llvm::Error::success();
}

/// What a failed tfmc-halide-gen wrote to `log`, for the message.
std::string readLog(const std::string &log) {
  auto text = llvm::MemoryBuffer::getFile(log);
  if (!text)
    return "";
  return llvm::StringRef((*text)->getBuffer()).trim().str();
}

} // namespace

llvm::Expected<std::string> tfmc::findHalideGenerator() {
  if (const char *env = std::getenv("TFMC_HALIDE_GEN"); env && *env) {
    if (!llvm::sys::fs::can_execute(env))
      return makeError(llvm::Twine("TFMC_HALIDE_GEN names '") + env +
                       "', which is not an executable program");
    return std::string(env);
  }
  std::string self = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&findHalideGenerator));
  llvm::SmallString<256> beside(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(beside, "tfmc-halide-gen");
  if (!self.empty() && llvm::sys::fs::can_execute(beside))
    return std::string(beside);
  return makeError("the Halide code generator tfmc-halide-gen is not "
                   "installed beside tfmc (tfmc was built without Halide 14: "
                   "tools/install-deps.sh installs libhalide14-0-dev, then "
                   "rebuild) and TFMC_HALIDE_GEN does not name it");
}

llvm::Error tfmc::generateHalideKernels(mlir::ModuleOp module,
                                        const std::string &directory,
                                        ObjectSet &code) {
  auto kernels = kernelsOf(module);
  if (!kernels)
    return kernels.takeError();
  if (kernels->empty())
    return llvm::Error::success();
  auto generator = findHalideGenerator();
  if (!generator)
    return generator.takeError();
  auto runtime = findRuntimeLibraries();
  if (!runtime)
    return runtime.takeError();
  std::string adapter = runtime->directory + "/libtfmrt_halide.a";
  if (!llvm::sys::fs::exists(adapter))
    return makeError("cannot find the Halide kernels' runtime adapter '" +
                     adapter + "' (tfmc was built without Halide 14)");

  // Each tfmc-halide-gen process generates its kernels one after the
  // other: one process per core, the kernels dealt out among them. The
  // first also writes the Halide runtime (every kernel has one target).
  size_t jobs = std::clamp<size_t>(std::thread::hardware_concurrency(), 1,
                                   kernels->size());
  std::vector<std::vector<halide::KernelDescription>> parts(jobs);
  for (size_t i = 0; i < kernels->size(); ++i)
    parts[i % jobs].push_back((*kernels)[i]);
  std::string runtimeObject = directory + "/halide_runtime.o";
  struct Job {
    llvm::sys::ProcessInfo process;
    std::string log;
  };
  std::vector<Job> running;
  for (size_t part = 0; part < jobs; ++part) {
    std::string descriptions =
        directory + "/halide_kernels_" + std::to_string(part) + ".json";
    if (auto error = writeFile(descriptions,
                               halide::writeKernelDescriptions(parts[part])))
      return error;
    std::vector<std::string> arguments = {*generator, "--emit=object", "-o",
                                          directory, descriptions};
    if (part == 0)
      arguments.push_back("--runtime=" + runtimeObject);
    std::vector<llvm::StringRef> argv(arguments.begin(), arguments.end());
    std::string log = descriptions + ".log";
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
    std::string message;
    bool failed = false;
    llvm::sys::ProcessInfo process = llvm::sys::ExecuteNoWait(
        *generator, argv, std::nullopt, redirects, 0, &message, &failed);
    if (failed)
      return makeError("cannot run the Halide code generator '" + *generator +
                       "': " + message);
    running.push_back({process, log});
  }
  std::string failures;
  for (Job &job : running) {
    std::string message;
    llvm::sys::ProcessInfo done =
        llvm::sys::Wait(job.process, std::nullopt, &message);
    if (done.ReturnCode != 0)
      failures +=
          "\n" + (readLog(job.log).empty() ? message : readLog(job.log));
  }
  if (!failures.empty())
    return makeError("the Halide code generator failed:" + failures);
  for (const halide::KernelDescription &kernel : *kernels)
    code.objects.push_back(directory + "/" + kernel.name + ".o");
  code.objects.push_back(runtimeObject);
  code.archives.push_back(adapter);
  return llvm::Error::success();
}

llvm::Error tfmc::printHalideStatements(mlir::ModuleOp module,
                                        const std::string &path) {
  auto kernels = kernelsOf(module);
  if (!kernels)
    return kernels.takeError();
  if (kernels->empty())
    return makeError("the module calls no Halide kernel (choose some with "
                     "--backend=halide or --kernel-backend=KIND:halide)");
  auto generator = findHalideGenerator();
  if (!generator)
    return generator.takeError();
  llvm::SmallString<128> directory;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("tfmc-halide", directory))
    return makeError("cannot create a temporary directory: " + ec.message());
  std::string descriptions = std::string(directory) + "/kernels.json";
  std::string log = std::string(directory) + "/log";
  llvm::Error result =
      writeFile(descriptions, halide::writeKernelDescriptions(*kernels));
  if (!result) {
    std::vector<llvm::StringRef> argv = {*generator, "--print-stmt", "-o",
                                         directory, descriptions};
    std::optional<llvm::StringRef> redirects[] = {
        std::nullopt,
        path == "-" ? std::optional<llvm::StringRef>()
                    : std::optional<llvm::StringRef>(path),
        llvm::StringRef(log)};
    std::string message;
    int status = llvm::sys::ExecuteAndWait(*generator, argv, std::nullopt,
                                           redirects, 0, 0, &message);
    if (status != 0)
      result = makeError("the Halide code generator failed: " +
                         (readLog(log).empty() ? message : readLog(log)));
  }
  llvm::sys::fs::remove_directories(directory);
  return result;
}
