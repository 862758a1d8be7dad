//===- HostObject.h - The ABI of a model's host object ----------*- C++ -*-===//
//
// Whatever generates the kernels (LLVM for the CPU, NVVM for CUDA, Halide),
// one host object defines the symbols of runtime/ModelABI.h. Its code
// arrives as a module in the LLVM dialect whose entries #tfm.entries names
// and whose arguments tfm.entry_arg marks; this translates it to LLVM IR
// and adds the ABI around it:
//   - the lowered entries keep their signatures and become internal, like
//     every other function;
//   - each ABI entry of the model's kind is a thin wrapper that takes the
//     ABI's parameters (a trailing `stream`; tfm_encode's `logits` even
//     without a masked-LM head) and calls its lowered entry, inlined at -O3,
//     with the arguments that entry has (the stream only where it takes
//     one, marked `#tfm.entry_arg<stream>`); an encode entry with encode
//     buckets instead calls the shortest bucket whose rows hold `length`,
//     and the full-sequence entry when none does;
//   - `tfm_model` is written from tfm_model_info's field table
//     (ModelInfoFields.h);
//   - `tfm_set_num_threads` does what the backend says with its argument.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_COMMON_HOSTOBJECT_H
#define TFMC_COMPILER_BACKENDS_COMMON_HOSTOBJECT_H

#include "runtime/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>

namespace tfmc {

struct HostObjectOptions {
  /// Emits the body of `void tfm_set_num_threads(int32_t threads)` at
  /// `builder` (before its return), `threads` its argument; unset, the
  /// function does nothing (code that forks no threads).
  std::function<void(llvm::IRBuilderBase &builder, llvm::Value *threads)>
      setNumThreads;
};

/// Translates `module` (the LLVM dialect) to LLVM IR that defines exactly
/// runtime/ModelABI.h's symbols for a model of `info.kind`, `tfm_model`
/// holding `info`. Fails with a message naming the entry when a lowered
/// entry's arguments do not match its ABI entry's parameters.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToHostModule(mlir::ModuleOp module, llvm::LLVMContext &context,
                      const tfm_model_info &info,
                      const HostObjectOptions &options);

/// Defines `const tfm_model_info tfm_model = info` in `module`, an LLVM
/// struct of tfm_model_info's fields (ModelInfoFields.h).
void defineModelInfo(llvm::Module &module, const tfm_model_info &info);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_COMMON_HOSTOBJECT_H
