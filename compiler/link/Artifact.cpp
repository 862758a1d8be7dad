//===- Artifact.cpp - A compiled model's objects -> what tfmc writes ------===//
#include "compiler/link/Artifact.h"

#include "compiler/link/Executable.h"
#include "compiler/link/Library.h"
#include "compiler/link/ModelPackage.h"
#include "compiler/link/OutputFile.h"

using namespace tfmc;

llvm::Error tfmc::writeArtifact(ArtifactKind kind, const std::string &output,
                                const ObjectSet &code, const LinkInputs &inputs,
                                const ModelSpec &spec,
                                const mlir::tfm::WeightLayout &layout,
                                const tfm::rt::PackageMetadata &targetMetadata,
                                const PackageWeights &weights) {
  if (kind == ArtifactKind::Library)
    return writeModelLibrary(code, output, inputs, spec, layout, targetMetadata,
                             weights);
  auto file = OutputFile::beside(output);
  if (!file)
    return file.takeError();
  const std::string &written = file->temporaryPath();
  if (auto error = linkExecutable(code, written, inputs))
    return error;
  if (auto error =
          appendModelPackage(written, spec, layout, targetMetadata, weights))
    return error;
  return file->commit();
}
