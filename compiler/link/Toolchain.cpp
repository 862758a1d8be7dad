//===- Toolchain.cpp - The programs and libraries tfmc links with ---------===//
#include "compiler/link/Toolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <vector>

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<RuntimeLibraries> tfmc::findRuntimeLibraries() {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TFMC_RUNTIME_LIB_DIR"))
    candidates.push_back(env);
  std::string self = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&findRuntimeLibraries));
  if (!self.empty()) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(dir, "..", "lib");
    candidates.push_back(std::string(dir));
  }
  candidates.push_back(TFMC_RUNTIME_LIB_DIR);
  for (const std::string &dir : candidates) {
    RuntimeLibraries libraries{dir};
    if (llvm::sys::fs::exists(libraries.main()))
      return libraries;
  }
  return makeError("cannot find the tfmc runtime (libtfmrt_main.a); set "
                   "TFMC_RUNTIME_LIB_DIR to the directory that holds it");
}

llvm::Expected<std::string> tfmc::findCompilerDriver() {
#ifdef TFMC_LINK_DRIVER
  // A sanitized tfmc: its runtime needs the compiler it was built with.
  std::string driverName = TFMC_LINK_DRIVER;
#else
  const char *cxxEnv = std::getenv("CXX");
  std::string driverName = cxxEnv && *cxxEnv ? cxxEnv : "c++";
#endif
  auto driver = llvm::sys::findProgramByName(driverName);
  if (!driver)
    return makeError("cannot find the C++ compiler driver '" + driverName +
                     "' used to link executables (set CXX)");
  return *driver;
}

llvm::ArrayRef<llvm::StringRef> tfmc::runtimeLinkFlags() {
#ifdef TFMC_LINK_FLAGS
  static const llvm::StringRef flags[] = {TFMC_LINK_FLAGS};
  return flags;
#else
  return {};
#endif
}

llvm::Error tfmc::runProgram(llvm::StringRef program,
                             llvm::ArrayRef<llvm::StringRef> arguments,
                             const llvm::Twine &what) {
  std::string message;
  int status = llvm::sys::ExecuteAndWait(program, arguments, std::nullopt, {},
                                         0, 0, &message);
  if (status != 0)
    return makeError(what + " failed (" + program + " exited with " +
                     llvm::Twine(status) +
                     (message.empty() ? "" : ": " + message) + ")");
  return llvm::Error::success();
}
