//===- Link.h - Produce executables from a model object ---------*- C++ -*-===//
#ifndef TFMC_COMPILER_LINK_LINK_H
#define TFMC_COMPILER_LINK_LINK_H

#include "compiler/spec/ModelSpec.h"
#include "compiler/weights/WeightLayout.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tfmc {

/// What a produced executable links besides the generated object and the
/// runtime (a backend's runtime libraries, e.g. OpenMP's).
struct LinkInputs {
  std::vector<std::string> arguments; ///< e.g. -L<dir> -lomp -Wl,-rpath,<dir>
};

/// Links the model object with the runtime (libtfmrt_main.a, libtfmrt.a)
/// and `inputs` into an executable, using the system C++ compiler driver
/// ($CXX or c++).
llvm::Error linkExecutable(const std::string &objectPath,
                           const std::string &outputPath,
                           const LinkInputs &inputs);

/// Appends the package (weights in `layout` order, tokenizer, metadata) that
/// the executable maps at run time (runtime/Package.h). The blob is written
/// as a stream, one weight materialised at a time, so this holds one
/// weight's scratch, never a copy of the model.
llvm::Error appendModelPackage(const std::string &executablePath,
                               const ModelSpec &spec,
                               const mlir::tfm::WeightLayout &layout);

/// `--emit=lib`: writes, in directory `outputDir` (created if absent) whose
/// name gives NAME, libNAME.a (the model object, the runtime with its C API
/// and the package, linked in), NAME.h (runtime/ModelLibrary.h), the
/// package as a file of its own, NAME.tfmpkg, and NAME.link, the flags a
/// program linking libNAME.a adds (`inputs` among them).
llvm::Error writeModelLibrary(const std::string &objectPath,
                              const std::string &outputDir,
                              const LinkInputs &inputs, const ModelSpec &spec,
                              const mlir::tfm::WeightLayout &layout);

/// The NAME of the library `--emit=lib -o outputDir` writes: the
/// directory's name with every character but letters, digits and '_'
/// replaced by '_'.
std::string libraryName(const std::string &outputDir);

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_LINK_H
