//===- ModelInfo.h - The facts tfm_model publishes --------------*- C++ -*-===//
//
// `tfm_model` (runtime/ModelABI.h) tells the runtime what the compiled code
// needs. Its facts have three sources, all backend-neutral: the network
// (the entries and their cache, the model's spec), the weights blob (its
// layout) and the lowered entries (their scratch); the backend adds the
// device its code runs on.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_BACKENDS_COMMON_MODELINFO_H
#define TFMC_COMPILER_BACKENDS_COMMON_MODELINFO_H

#include "compiler/spec/ModelSpec.h"
#include "compiler/weights/WeightLayout.h"
#include "runtime/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace tfmc {

/// The facts of a module whose entries are set (#tfm.entries) and whose
/// KV cache still has its tensor or memref type, before lowering: the ABI
/// version, the network's sizes and kind, the cache, the weights blob of
/// `layout` (which the package holds) and `device` (TFM_DEVICE_*). The
/// scratch is the lowered code's (describeScratch).
llvm::Expected<tfm_model_info>
describeModel(mlir::ModuleOp module, const ModelSpec &spec,
              const mlir::tfm::WeightLayout &layout, uint32_t device);

/// Sets `info`'s scratch from the lowered `module`: the largest of its
/// LLVM-dialect entries' scratch arguments (tfm.entry_arg<scratch>), whose
/// `llvm.dereferenceable` says how many bytes the code reads and
/// `llvm.align` how it is aligned. One buffer serves every entry, since a
/// caller runs one at a time per cache.
llvm::Error describeScratch(mlir::ModuleOp module, tfm_model_info &info);

} // namespace tfmc

#endif // TFMC_COMPILER_BACKENDS_COMMON_MODELINFO_H
