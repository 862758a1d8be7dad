//===- Link.cpp - Produce executables from a model object -----------------===//
#include "compiler/link/Link.h"

#include "compiler/weights/Panels.h"
#include "compiler/weights/Transforms.h"
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
#ifdef TFMC_LINK_DRIVER
  // A sanitized tfmc: its runtime needs the compiler it was built with.
  std::string driverName = TFMC_LINK_DRIVER;
#else
  const char *cxxEnv = std::getenv("CXX");
  std::string driverName = cxxEnv && *cxxEnv ? cxxEnv : "c++";
#endif
  auto driver = llvm::sys::findProgramByName(driverName);
  if (!driver)
    return makeError("cannot find the C++ compiler driver '" + driverName +
                     "' used to link executables (set CXX)");
  std::string mainLib = *libDir + "/libtfmrt_main.a";
  std::string runtimeLib = *libDir + "/libtfmrt.a";
  llvm::SmallVector<llvm::StringRef> args = {
      *driver, "-o", outputPath, objectPath, mainLib, runtimeLib,
      "-lm", "-lpthread"};
#ifdef TFMC_LINK_FLAGS
  args.push_back(TFMC_LINK_FLAGS);
#endif
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

/// The bytes of `slot`: its model weights (several when stacked) in the
/// slot's element type, stacked, and packed into panels when it is panels.
static llvm::Expected<weights::TensorView>
materializeSlot(const mlir::tfm::WeightSlot &slot, const ModelSpec &spec) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError("weight '" + slot.name + "' " + what);
  };
  auto because = [&](llvm::Error error) {
    return llvm::createStringError("weight '" + slot.name +
                                   "': " + llvm::toString(std::move(error)));
  };
  if (!slot.elementType)
    return fail("has an element type the weights blob cannot hold");
  std::vector<std::string> names = slot.stacked;
  if (names.empty())
    names.push_back(slot.name);
  std::vector<weights::TensorView> parts;
  for (const std::string &name : names) {
    auto found = spec.weights.find(name);
    if (found == spec.weights.end())
      return llvm::createStringError("the network reads weight '" + name +
                                     "' that the model does not provide");
    auto part = found->second.materialize(*slot.elementType);
    if (!part)
      return because(part.takeError());
    // The network would propagate a NaN or infinity into every logit; the
    // scan rides on the pass that writes these bytes out anyway.
    if (std::optional<uint64_t> index = weights::findNonFinite(*part))
      return llvm::createStringError(
          spec.description + ": weight '" + name + "' holds " +
          std::to_string(weights::elementAsFloat(*part, *index)) +
          " at element " + llvm::Twine(*index) + " of its " +
          weights::elementTypeName(part->type()) + " " +
          weights::shapeString(part->shape()));
    parts.push_back(std::move(*part));
  }
  auto tensor = weights::stack(parts);
  if (!tensor)
    return because(tensor.takeError());
  if (slot.panels) {
    if (tensor->rank() != 2 || tensor->shape()[1] != slot.shape[1])
      return fail("is a " + weights::shapeString(tensor->shape()) +
                  " tensor, not a matrix of " + llvm::Twine(slot.shape[1]) +
                  " columns");
    tensor = weights::packPanels(*tensor, slot.shape[0], slot.shape[2]);
    if (!tensor)
      return because(tensor.takeError());
  }
  if (tensor->numElements() != weights::numElements(slot.shape))
    return fail("has " + llvm::Twine(tensor->numElements()) +
                " elements but the network expects " +
                llvm::Twine(weights::numElements(slot.shape)));
  return tensor;
}

llvm::Error tfmc::appendModelPackage(const std::string &executablePath,
                                     const ModelSpec &spec,
                                     const mlir::tfm::WeightLayout &layout) {
  tfm::rt::PackageWriter writer;
  std::string error;
  if (!writer.begin(executablePath, layout.totalBytes, error))
    return makeError(error);
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    auto tensor = materializeSlot(slot, spec);
    if (!tensor)
      return tensor.takeError();
    if (!writer.writeZeros(slot.offset - writer.written(), error) ||
        !writer.write(tensor->data(), tensor->bytes(), error))
      return makeError(error);
  }
  if (!writer.writeZeros(layout.totalBytes - writer.written(), error))
    return makeError(error);
  tfm::rt::PackageMetadata metadata;
  metadata["tokenizer.kind"] = spec.tokenizer.kind;
  metadata["tokenizer.data"] = spec.tokenizer.blob;
  metadata["token.bos"] = std::to_string(spec.tokenizer.bos);
  metadata["token.eos"] = std::to_string(spec.tokenizer.eos);
  metadata["model.description"] = spec.description;
  if (!spec.note.empty())
    metadata["model.note"] = spec.note;
  if (!writer.finish(layout.hash, metadata, error))
    return makeError(error);
  return llvm::Error::success();
}
