//===- HostKernelErrors.h - Failures of host code that returns nothing -*- C++
//-*-===//
//
// The entries return nothing, so code they call that can fail (a Halide
// kernel returning an error code through runtime/halide's adapter) records
// its first failure here; HostDevice::synchronize reports it, as a CUDA
// device reports a failed launch.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_DEVICE_HOST_HOSTKERNELERRORS_H
#define TFMC_RUNTIME_DEVICE_HOST_HOSTKERNELERRORS_H

#include <string>

namespace tfm::rt {

/// Records `message` unless a failure is recorded already (thread-safe).
void reportHostKernelError(const std::string &message);

/// Moves the recorded failure into `error` and clears it; false when none.
bool takeHostKernelError(std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_DEVICE_HOST_HOSTKERNELERRORS_H
