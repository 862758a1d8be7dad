//===- HalideKernels.h - A module's Halide kernels as objects ---*- C++ -*-===//
//
// The backends' side of the Halide code generator: find tfmc-halide-gen,
// hand it the kernels a lowered module declares (tfm_halide.kernels) and
// take back their objects, the one Halide runtime and the adapter's
// archive, or their lowered statements. tfmc-halide-gen runs as a separate
// process: Halide's LLVM 14 never enters tfmc's (../shared/TOOLCHAIN.md).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_HALIDE_HALIDEKERNELS_H
#define TFMC_COMPILER_BACKENDS_HALIDE_HALIDEKERNELS_H

#include "compiler/link/LinkInputs.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

/// The tfmc-halide-gen program: $TFMC_HALIDE_GEN, else the one beside
/// tfmc. An error saying how to get one when there is none.
llvm::Expected<std::string> findHalideGenerator();

/// Generates the module's Halide kernels into `directory` and adds their
/// objects, the Halide runtime and the runtime's adapter
/// (libtfmrt_halide.a) to `code`.
llvm::Error generateHalideKernels(mlir::ModuleOp module,
                                  const std::string &directory,
                                  ObjectSet &code);

/// Writes each kernel's lowered Halide statements to `path` ("-":
/// stdout): `--compile-to=halide`.
llvm::Error printHalideStatements(mlir::ModuleOp module,
                                  const std::string &path);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_HALIDE_HALIDEKERNELS_H
