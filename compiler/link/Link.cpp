//===- Link.cpp - Produce executables from a model object -----------------===//
#include "compiler/link/Link.h"

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
                                 const std::string &outputPath,
                                 const LinkInputs &inputs) {
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
      "-lm", "-lpthread"};
  for (const std::string &argument : inputs.arguments)
    args.push_back(argument);
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
/// tfm.global_weight: `out[p][k][j] = matrix[p * width + j][k]`, zero for
/// rows past the end (a partial last panel and any padding panels).
static llvm::Error writePanels(const mlir::tfm::WeightSlot &slot,
                               const std::vector<float> &matrix, float *out) {
  uint64_t panels = slot.shape[0], columns = slot.shape[1],
           width = slot.shape[2];
  uint64_t rows = columns ? matrix.size() / columns : 0;
  if (rows * columns != matrix.size() || rows > panels * width)
    return makeError("weight '" + slot.name + "' has " +
                     llvm::Twine(matrix.size()) +
                     " elements, which do not form the rows of " +
                     llvm::Twine(panels) + " panels of " + llvm::Twine(width) +
                     " x " + llvm::Twine(columns));
  for (uint64_t p = 0; p < panels; ++p)
    for (uint64_t k = 0; k < columns; ++k)
      for (uint64_t j = 0; j < width; ++j) {
        uint64_t row = p * width + j;
        *out++ = row < rows ? matrix[row * columns + k] : 0.0f;
      }
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
      if (llvm::Error error = writePanels(slot, *source, out))
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
