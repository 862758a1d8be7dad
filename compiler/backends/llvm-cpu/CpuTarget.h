//===- CpuTarget.h - The CPU code is generated for --------------*- C++ -*-===//
#ifndef TFMC_COMPILER_BACKENDS_LLVMCPU_CPUTARGET_H
#define TFMC_COMPILER_BACKENDS_LLVMCPU_CPUTARGET_H

#include "compiler/backends/common/ObjectEmission.h"
#include "dialect/TfmOps.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

/// Describes the CPU to generate code for: `cpu` (empty: this machine, with
/// the features it reports; else the features the named CPU implies, spelled
/// out) on the host's triple, with its widest vector registers and how many
/// there are (32 x 512 bits with AVX-512, 16 x 256 with AVX, else 16 x 128):
/// a cpu #tfm.target with its #tfm.cpu_target config.
llvm::Expected<mlir::tfm::TargetAttr>
describeCpuTarget(mlir::MLIRContext &context, const std::string &cpu);

/// The machine a cpu #tfm.target describes, as LLVM's TargetMachine wants it.
MachineDescription machineOf(mlir::tfm::CpuTargetAttr cpu);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_LLVMCPU_CPUTARGET_H
