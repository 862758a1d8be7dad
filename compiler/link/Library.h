//===- Library.h - A model as a static library with a C API -----*- C++ -*-===//
#ifndef TFMC_COMPILER_LINK_LIBRARY_H
#define TFMC_COMPILER_LINK_LIBRARY_H

#include "compiler/link/LinkInputs.h"
#include "compiler/link/ModelPackage.h"
#include "compiler/spec/ModelSpec.h"
#include "compiler/weights/WeightLayout.h"
#include "runtime/Package.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

/// `--emit=lib`: writes, in directory `outputDir` (created if absent) whose
/// name gives NAME, libNAME.a (every object of `code` and every member of
/// its archives, the runtime with its C API and the package, linked in),
/// NAME.h (runtime/ModelLibrary.h), the package as a file of its own,
/// NAME.tfmpkg, and NAME.link, the flags a program linking libNAME.a adds
/// (`inputs` among them).
llvm::Error
writeModelLibrary(const ObjectSet &code, const std::string &outputDir,
                  const LinkInputs &inputs, const ModelSpec &spec,
                  const mlir::tfm::WeightLayout &layout,
                  const tfm::rt::PackageMetadata &targetMetadata = {},
                  const PackageWeights &weights = {});

/// The NAME of the library `--emit=lib -o outputDir` writes: the
/// directory's name with every character but letters, digits and '_'
/// replaced by '_'.
std::string libraryName(const std::string &outputDir);

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_LIBRARY_H
