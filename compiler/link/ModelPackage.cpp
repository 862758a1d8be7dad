//===- ModelPackage.cpp - Write the package a compiled model maps ---------===//
#include "compiler/link/ModelPackage.h"

#include "compiler/link/PackageMetadata.h"
#include "compiler/weights/SlotContents.h"
#include "runtime/Package.h"
#include "runtime/PackageKeys.h"

#include "llvm/Support/WithColor.h"

#include <set>

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Writes the blob, one slot of `layout` at a time, from the model's
/// weights; the warnings about them go to `warnings`.
static llvm::Error writeBlob(tfm::rt::PackageWriter &writer,
                             const ModelSpec &spec,
                             const mlir::tfm::WeightLayout &layout,
                             const PackageProgress &progress,
                             std::set<std::string> &warnings) {
  std::string error;
  weights::ModelWeights model{spec.weights, spec.description, &warnings};
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    auto contents = weights::materializeSlot(slot, model);
    if (!contents)
      return contents.takeError();
    if (!writer.writeZeros(slot.offset - writer.written(), error) ||
        !writer.write(contents->data(), contents->size(), error))
      return makeError(error);
    if (progress)
      progress(writer.written(), layout.totalBytes);
  }
  if (!writer.writeZeros(layout.totalBytes - writer.written(), error))
    return makeError(error);
  return llvm::Error::success();
}

llvm::Error
tfmc::appendModelPackage(const std::string &path, const ModelSpec &spec,
                         const mlir::tfm::WeightLayout &layout,
                         const tfm::rt::PackageMetadata &targetMetadata,
                         const PackageWeights &weights) {
  tfm::rt::PackageWriter writer;
  std::string error;
  if (!writer.begin(path, layout.totalBytes, error))
    return makeError(error);
  tfm::rt::PackageMetadata metadata = packageMetadata(spec, layout);
  metadata.insert(targetMetadata.begin(), targetMetadata.end());
  std::set<std::string> warnings;
  if (weights.randomSeed) {
    writer.fillAtLoad(*weights.randomSeed);
    std::string note = "the weights are random (tfmc compile "
                       "--random-weights, seed " +
                       std::to_string(*weights.randomSeed) +
                       "), not the model's: the text is gibberish";
    std::string &modelNote = metadata[tfm::rt::keys::kNote];
    modelNote = modelNote.empty() ? note : note + "; " + modelNote;
  } else if (auto blobError =
                 writeBlob(writer, spec, layout, weights.progress, warnings)) {
    return blobError;
  }
  if (!writer.finish(layout.hash, metadata, error))
    return makeError(error);
  for (const std::string &warning : warnings)
    llvm::WithColor::warning(llvm::errs(), "tfmc") << warning << "\n";
  return llvm::Error::success();
}
