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

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_LINK_H
