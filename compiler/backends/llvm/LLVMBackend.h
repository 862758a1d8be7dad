//===- LLVMBackend.h - LLVM dialect -> LLVM IR -> host object ---*- C++ -*-===//
#ifndef TFMC_COMPILER_BACKENDS_LLVM_LLVMBACKEND_H
#define TFMC_COMPILER_BACKENDS_LLVM_LLVMBACKEND_H

#include "runtime/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace tfmc {

/// Translates a module in the LLVM dialect (entries `prefill` and `decode`)
/// into LLVM IR exporting the symbols of runtime/ModelABI.h: the entries are
/// renamed `tfm_prefill` / `tfm_decode` and `tfm_model` is defined from
/// `info`. Every other function becomes internal.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToModelIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                   const tfm_model_info &info);

/// How many SIMD registers generated code may use on `cpu` (empty: this
/// machine): 32 with AVX-512, else 16. Sizes the micro-kernels' register
/// tiles.
llvm::Expected<unsigned> vectorRegisterCount(const std::string &cpu);

enum class ObjectKind { Assembly, Object };

/// Optimises `module` at -O3 for the host CPU (or `cpu` when non-empty) and
/// writes assembly or an object file to `path` ("-" for stdout).
llvm::Error emitMachineCode(llvm::Module &module, ObjectKind kind,
                            const std::string &path, const std::string &cpu);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_LLVM_LLVMBACKEND_H
