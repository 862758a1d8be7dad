//===- ObjectEmission.h - LLVM IR -> optimised object or assembly -*- C++
//-*-===//
//
// The LLVM half of every backend's host object: a TargetMachine for the
// machine the host code runs on, the -O3 module pipeline, and the object
// or assembly written from it. The CPU backend's kernels are this host
// code; a GPU or Halide backend's host object goes through it too.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_COMMON_OBJECTEMISSION_H
#define TFMC_COMPILER_BACKENDS_COMMON_OBJECTEMISSION_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <string>

namespace tfmc {

/// The machine host code is generated for, in LLVM's terms.
struct MachineDescription {
  std::string triple;
  std::string cpu;
  std::string features; ///< "+avx2,+fma,..."
};

/// LLVM's target for `triple` (the native targets are initialised first).
llvm::Expected<const llvm::Target *> lookupTarget(const llvm::Triple &triple);

/// A TargetMachine for `machine` at -O3, position-independent code.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const MachineDescription &machine);

enum class ObjectKind { Assembly, Object };

/// Optimises `module` at -O3 for `machine` and writes assembly or an object
/// file to `path` ("-" for stdout). With `sanitizeThread`, instruments every
/// memory access for ThreadSanitizer.
llvm::Error emitMachineCode(llvm::Module &module, ObjectKind kind,
                            const std::string &path,
                            const MachineDescription &machine,
                            bool sanitizeThread = false);

/// Writes the host object's artifact `stage` of `module` to `path` ("-":
/// stdout): "llvm-ir" (the module as it is, textual), "asm" or "obj"
/// (emitMachineCode). An error names `backend` for any other stage.
llvm::Error writeHostArtifact(llvm::Module &module, llvm::StringRef stage,
                              const std::string &path,
                              const MachineDescription &machine,
                              llvm::StringRef backend,
                              bool sanitizeThread = false);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_COMMON_OBJECTEMISSION_H
