//===- Executable.h - Link a model's objects into an executable -*- C++ -*-===//
#ifndef TFMC_COMPILER_LINK_EXECUTABLE_H
#define TFMC_COMPILER_LINK_EXECUTABLE_H

#include "compiler/link/LinkInputs.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

/// Links `code` (every object and archive, in order) with the runtime's
/// main() (libtfmrt_main.a, libtfmrt.a) and `inputs` into the executable
/// `outputPath`, with the C++ compiler driver (Toolchain.h). The package
/// is appended afterwards (ModelPackage.h).
llvm::Error linkExecutable(const ObjectSet &code, const std::string &outputPath,
                           const LinkInputs &inputs);

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_EXECUTABLE_H
