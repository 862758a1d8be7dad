//===- Artifact.cpp - A compiled model's objects -> what tfmc writes ------===//
#include "compiler/link/Artifact.h"

#include "compiler/link/Executable.h"
#include "compiler/link/Library.h"
#include "compiler/link/ModelPackage.h"

#include "llvm/Support/FileUtilities.h"

using namespace tfmc;

llvm::Error
tfmc::writeArtifact(ArtifactKind kind, const std::string &output,
                    const ObjectSet &code, const LinkInputs &inputs,
                    const ModelSpec &spec,
                    const mlir::tfm::WeightLayout &layout,
                    const tfm::rt::PackageMetadata &targetMetadata) {
  if (kind == ArtifactKind::Library)
    return writeModelLibrary(code, output, inputs, spec, layout,
                             targetMetadata);
  if (auto error = linkExecutable(code, output, inputs))
    return error;
  llvm::FileRemover removeOutput(output);
  if (auto error = appendModelPackage(output, spec, layout, targetMetadata))
    return error;
  removeOutput.releaseFile();
  return llvm::Error::success();
}
