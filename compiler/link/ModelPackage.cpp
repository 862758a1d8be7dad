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
  if (weights.randomSeed) {
    writer.fillAtLoad(*weights.randomSeed);
    std::string note = "the weights are random (tfmc compile "
                       "--random-weights, seed " +
                       std::to_string(*weights.randomSeed) +
                       "), not the model's: the text is gibberish";
    std::string &modelNote = metadata[tfm::rt::keys::kNote];
    modelNote = modelNote.empty() ? note : note + "; " + modelNote;
    if (!writer.finish(layout.hash, metadata, error))
      return makeError(error);
    return llvm::Error::success();
  }
  std::set<std::string> warnings;
  weights::ModelWeights model{spec.weights, spec.description, &warnings};
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    auto contents = weights::materializeSlot(slot, model);
    if (!contents)
      return contents.takeError();
    if (!writer.writeZeros(slot.offset - writer.written(), error) ||
        !writer.write(contents->data(), contents->size(), error))
      return makeError(error);
    if (weights.progress)
      weights.progress(writer.written(), layout.totalBytes);
  }
  if (!writer.writeZeros(layout.totalBytes - writer.written(), error))
    return makeError(error);
  if (!writer.finish(layout.hash, metadata, error))
    return makeError(error);
  for (const std::string &warning : warnings)
    llvm::WithColor::warning(llvm::errs(), "tfmc") << warning << "\n";
  return llvm::Error::success();
}
