//===- Artifact.h - A compiled model's objects -> what tfmc writes -*- C++
//-*-===//
//
// The last step of `tfmc compile`, the same for every backend: the objects
// and archives of the model's code, linked with the tfmc runtime, become
// an executable with the package appended, or (--emit=lib) a directory
// with a static library, its C header, the package and the link flags.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_LINK_ARTIFACT_H
#define TFMC_COMPILER_LINK_ARTIFACT_H

#include "compiler/link/LinkInputs.h"
#include "compiler/link/ModelPackage.h"
#include "compiler/spec/ModelSpec.h"
#include "compiler/weights/WeightLayout.h"
#include "runtime/Package.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

enum class ArtifactKind {
  Executable, ///< -o FILE
  Library,    ///< --emit=lib -o DIR
};

/// Writes the `kind` of artifact at `output` from `code` and `inputs`
/// (Executable.h, Library.h) and the package of `spec`'s weights in
/// `layout` with the backend's `targetMetadata` (ModelPackage.h). An executable
/// whose package could not be written is removed: it would only fail to start.
llvm::Error writeArtifact(ArtifactKind kind, const std::string &output,
                          const ObjectSet &code, const LinkInputs &inputs,
                          const ModelSpec &spec,
                          const mlir::tfm::WeightLayout &layout,
                          const tfm::rt::PackageMetadata &targetMetadata,
                          const PackageWeights &weights = {});

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_ARTIFACT_H
