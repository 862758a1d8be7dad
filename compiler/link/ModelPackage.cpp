//===- ModelPackage.cpp - Write the package a compiled model maps ---------===//
#include "compiler/link/ModelPackage.h"

#include "compiler/weights/SlotContents.h"
#include "runtime/Package.h"

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error tfmc::appendModelPackage(const std::string &path,
                                     const ModelSpec &spec,
                                     const mlir::tfm::WeightLayout &layout) {
  tfm::rt::PackageWriter writer;
  std::string error;
  if (!writer.begin(path, layout.totalBytes, error))
    return makeError(error);
  weights::ModelWeights model{spec.weights, spec.description};
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    auto contents = weights::materializeSlot(slot, model);
    if (!contents)
      return contents.takeError();
    if (!writer.writeZeros(slot.offset - writer.written(), error) ||
        !writer.write(contents->data(), contents->size(), error))
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
  if (spec.config.kind == ModelKind::EncoderOnly)
    metadata["embedding.pooling"] = spec.config.embeddingPooling;
  if (!writer.finish(layout.hash, metadata, error))
    return makeError(error);
  return llvm::Error::success();
}
