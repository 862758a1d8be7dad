//===- Toolchain.h - The programs and libraries tfmc links with -*- C++ -*-===//
//
// Produced executables and libraries are linked by the system's C++
// compiler driver against the tfmc runtime's archives (runtime/). This
// finds both and runs the driver.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_LINK_TOOLCHAIN_H
#define TFMC_COMPILER_LINK_TOOLCHAIN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

/// The tfmc runtime's files, in one directory.
struct RuntimeLibraries {
  std::string directory;
  /// main() of executables: CLI, generation, --bench (libtfmrt_main.a).
  std::string main() const { return directory + "/libtfmrt_main.a"; }
  /// The C API of --emit=lib libraries (libtfmrt_lib.a).
  std::string library() const { return directory + "/libtfmrt_lib.a"; }
  /// What both build on: package, tokenizers, sampler, devices
  /// (libtfmrt.a).
  std::string base() const { return directory + "/libtfmrt.a"; }
  /// The C header of the library's API (ModelLibrary.h).
  std::string header() const { return directory + "/ModelLibrary.h"; }
};

/// Where libtfmrt*.a live: $TFMC_RUNTIME_LIB_DIR, next to the build tree's
/// tools, or in the install prefix's lib/ relative to the running tfmc.
llvm::Expected<RuntimeLibraries> findRuntimeLibraries();

/// The C++ compiler driver that links executables (and assembles the
/// package object of a library): $CXX or c++, or the compiler a sanitized
/// tfmc was built with.
llvm::Expected<std::string> findCompilerDriver();

/// Flags every link with the runtime needs: the sanitizer runtimes of a
/// sanitized tfmc's runtime, or nothing.
llvm::ArrayRef<llvm::StringRef> runtimeLinkFlags();

/// Runs `program` with `arguments` (argv[0] included); `what` says what it
/// was doing in the error ("linking 'story'").
llvm::Error runProgram(llvm::StringRef program,
                       llvm::ArrayRef<llvm::StringRef> arguments,
                       const llvm::Twine &what);

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_TOOLCHAIN_H
