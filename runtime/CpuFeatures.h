//===- CpuFeatures.h - Does this CPU run the compiled code? -----*- C++ -*-===//
//
// tfmc generates code for one CPU (--target-cpu, by default the compiling
// machine's), whose instructions an older CPU lacks: run there, the code
// would stop at the first one with SIGILL. The package records the
// target's CPU and features (target.cpu, target.features); the runtime
// compares them with what CPUID and the OS report before any code runs.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_CPUFEATURES_H
#define TFMC_RUNTIME_CPUFEATURES_H

#include "runtime/Package.h"

#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt {

/// The features of `features` (LLVM's names, comma-separated, as the
/// package's target.features) that this CPU lacks or its OS has not
/// enabled. Names this runtime cannot test are assumed present; so is
/// everything off x86-64.
std::vector<std::string> missingCpuFeatures(std::string_view features);

/// False, with "'NAME': ..." naming the target CPU and the missing
/// features in `error`, when this CPU cannot run the code the package was
/// compiled with.
bool checkCpuRunsModel(const Package &package, const std::string &name,
                       std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_CPUFEATURES_H
