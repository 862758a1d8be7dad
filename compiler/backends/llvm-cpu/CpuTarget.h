//===- LLVMEmission.h - LLVM dialect -> LLVM IR -> CPU object ---*- C++ -*-===//
#ifndef TFMC_COMPILER_BACKENDS_LLVMCPU_LLVMEMISSION_H
#define TFMC_COMPILER_BACKENDS_LLVMCPU_LLVMEMISSION_H

#include "dialect/TfmOps.h"
#include "runtime/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace tfmc {

/// Describes the CPU to generate code for: `cpu` (empty: this machine, with
/// the features it reports; else the features the named CPU implies, spelled
/// out) on the host's triple, with its widest vector
/// registers and how many there are (32 x 512 bits with AVX-512, 16 x 256
/// with AVX, else 16 x 128).
llvm::Expected<mlir::tfm::TargetAttr>
describeCpuTarget(mlir::MLIRContext &context, const std::string &cpu);

/// Translates a module in the LLVM dialect (entries named by #tfm.entries)
/// into LLVM IR exporting the symbols of runtime/ModelABI.h: the entries are
/// renamed `tfm_prefill` / `tfm_decode` and `tfm_model` is defined from
/// `info`. Every other function becomes internal.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToModelIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                   const tfm_model_info &info);

enum class ObjectKind { Assembly, Object };

/// Optimises `module` at -O3 for `target` and writes assembly or an object
/// file to `path` ("-" for stdout). With `sanitizeThread`, instruments every
/// memory access for ThreadSanitizer.
llvm::Error emitMachineCode(llvm::Module &module, ObjectKind kind,
                            const std::string &path,
                            mlir::tfm::TargetAttr target,
                            bool sanitizeThread = false);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_LLVMCPU_LLVMEMISSION_H
