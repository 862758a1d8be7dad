//===- Link.cpp - Produce executables from a model object -----------------===//
#include "compiler/link/Link.h"

#include "compiler/weights/Panels.h"
#include "runtime/Package.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <cstring>

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Where libtfmrt*.a live: next to the build tree's tools, or in the
/// install prefix's lib/ relative to the running tfmc.
static llvm::Expected<std::string> findRuntimeLibraryDir() {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TFMC_RUNTIME_LIB_DIR"))
    candidates.push_back(env);
  std::string self = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&findRuntimeLibraryDir));
  if (!self.empty()) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(dir, "..", "lib");
    candidates.push_back(std::string(dir));
  }
  candidates.push_back(TFMC_RUNTIME_LIB_DIR);
  for (const std::string &dir : candidates) {
    llvm::SmallString<256> probe(dir);
    llvm::sys::path::append(probe, "libtfmrt_main.a");
    if (llvm::sys::fs::exists(probe))
      return dir;
  }
  return makeError("cannot find the tfmc runtime (libtfmrt_main.a); set "
                   "TFMC_RUNTIME_LIB_DIR to the directory that holds it");
}

llvm::Error tfmc::linkExecutable(const std::string &objectPath,
                                 const std::string &outputPath) {
  auto libDir = findRuntimeLibraryDir();
  if (!libDir)
    return libDir.takeError();
  const char *cxxEnv = std::getenv("CXX");
  std::string driverName = cxxEnv && *cxxEnv ? cxxEnv : "c++";
  auto driver = llvm::sys::findProgramByName(driverName);
  if (!driver)
    return makeError("cannot find the C++ compiler driver '" + driverName +
                     "' used to link executables (set CXX)");
  std::string mainLib = *libDir + "/libtfmrt_main.a";
  std::string runtimeLib = *libDir + "/libtfmrt.a";
  llvm::SmallVector<llvm::StringRef> args = {
      *driver, "-o", outputPath, objectPath, mainLib, runtimeLib,
      "-lm", "-lpthread",
      // Kernels work-share loops through the LLVM OpenMP runtime.
      "-L" TFMC_OPENMP_LIB_DIR, "-lomp", "-Wl,-rpath," TFMC_OPENMP_LIB_DIR};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return makeError("linking '" + outputPath + "' failed (" + *driver +
                     " exited with " + llvm::Twine(status) +
                     (message.empty() ? "" : ": " + message) + ")");
  return llvm::Error::success();
}

/// The elements of `slot`'s source: its model tensors one after the other.
static llvm::Expected<std::vector<float>>
gatherSlotSource(const mlir::tfm::WeightSlot &slot, const ModelSpec &spec) {
  std::vector<std::string> parts = slot.stacked;
  if (parts.empty())
    parts.push_back(slot.name);
  std::vector<float> elements;
  for (const std::string &part : parts) {
    auto found = spec.weights.find(part);
    if (found == spec.weights.end())
      return makeError("the network reads weight '" + part +
                       "' that the model does not provide");
    elements.insert(elements.end(), found->second.data.begin(),
                    found->second.data.end());
  }
  return elements;
}

/// Writes the [rows, columns] row-major `matrix` as the column panels of
/// tfm.global_weight (compiler/weights/Panels.h).
static llvm::Error writePanels(const mlir::tfm::WeightSlot &slot,
                               std::vector<float> matrix, float *out) {
  int64_t columns = slot.shape[1];
  int64_t rows = columns ? int64_t(matrix.size()) / columns : 0;
  if (uint64_t(rows * columns) != matrix.size())
    return makeError("weight '" + slot.name + "' has " +
                     llvm::Twine(matrix.size()) +
                     " elements, which do not form rows of " +
                     llvm::Twine(columns));
  auto panels = tfmc::weights::packPanels(
      tfmc::weights::TensorView::fromF32({rows, columns}, std::move(matrix)),
      slot.shape[0], slot.shape[2]);
  if (!panels)
    return makeError("weight '" + slot.name +
                     "': " + llvm::toString(panels.takeError()));
  std::memcpy(out, panels->data(), panels->bytes());
  return llvm::Error::success();
}

llvm::Error tfmc::appendModelPackage(const std::string &executablePath,
                                     const ModelSpec &spec,
                                     const mlir::tfm::WeightLayout &layout) {
  std::string blob(layout.totalBytes, '\0');
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    auto source = gatherSlotSource(slot, spec);
    if (!source)
      return source.takeError();
    auto *out = reinterpret_cast<float *>(&blob[slot.offset]);
    if (slot.panels) {
      if (llvm::Error error = writePanels(slot, std::move(*source), out))
        return error;
      continue;
    }
    uint64_t expected = slot.bytes / sizeof(float);
    if (source->size() != expected)
      return makeError("weight '" + slot.name + "' has " +
                       llvm::Twine(source->size()) +
                       " elements but the network expects " +
                       llvm::Twine(expected));
    std::memcpy(out, source->data(), slot.bytes);
  }
  tfm::rt::PackageMetadata metadata;
  metadata["tokenizer.kind"] = spec.tokenizer.kind;
  metadata["tokenizer.data"] = spec.tokenizer.blob;
  metadata["token.bos"] = std::to_string(spec.tokenizer.bos);
  metadata["token.eos"] = std::to_string(spec.tokenizer.eos);
  metadata["model.description"] = spec.description;
  if (!spec.note.empty())
    metadata["model.note"] = spec.note;
  std::string error;
  if (!tfm::rt::appendPackage(executablePath, blob, layout.hash, metadata,
                              error))
    return makeError(error);
  return llvm::Error::success();
}
