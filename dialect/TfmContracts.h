//===- TfmContracts.h - Typed access to the tfm IR contracts ----*- C++ -*-===//
//
// The module and argument attributes that stages hand to each other
// (TfmAttrs.td), read and written through one place each so that no stage
// spells an attribute name.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_DIALECT_TFMCONTRACTS_H
#define TFMC_DIALECT_TFMCONTRACTS_H

#include "dialect/TfmOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace mlir::tfm {

/// The network's facts (tfm.model), or null when the module has none.
ModelAttr getModel(ModuleOp module);
void setModel(ModuleOp module, ModelAttr model);
/// What the module's network computes (tfm.model's kind: decoder, encoder
/// or encoder_decoder), or nullopt when the module has no tfm.model. The
/// builder decides it from the model's configuration; stages read it here
/// rather than re-inferring it from the functions or the entries.
std::optional<ModelKind> getModelKind(ModuleOp module);

/// The entry points (tfm.entries), or null before tfm-kv-cache.
EntriesAttr getEntries(ModuleOp module);
void setEntries(ModuleOp module, EntriesAttr entries);

/// The target (tfm.target) of `op`'s module, or null when none was chosen.
TargetAttr getTarget(Operation *op);
void setTarget(ModuleOp module, TargetAttr target);
/// The CPU `target` describes (its #tfm.cpu_target config), or null when
/// `target` is null or another backend's.
CpuTargetAttr getCpuTarget(TargetAttr target);
/// The CPU of `op`'s module target, or null when none was chosen or the
/// target is not a CPU.
CpuTargetAttr getCpuTarget(Operation *op);
/// The GPU `target` describes (its #tfm.cuda_target config), or null when
/// `target` is null or another backend's.
CudaTargetAttr getCudaTarget(TargetAttr target);
/// Whether `target` (may be null) is a CPU whose features enable `feature`
/// ("+avx2": an entry of its comma-separated LLVM feature list).
bool hasTargetFeature(TargetAttr target, StringRef feature);

/// The weights blob layout (tfm.weights), or null before weights are bound.
WeightsLayoutAttr getWeightsLayout(ModuleOp module);
void setWeightsLayout(ModuleOp module, WeightsLayoutAttr layout);

/// The function an entries symbol names, or null.
FunctionOpInterface lookupEntry(ModuleOp module, FlatSymbolRefAttr symbol);

/// Marks argument `index` of `function` as carrying `kind`.
void setEntryArg(FunctionOpInterface function, unsigned index, EntryArg kind);
/// The argument of `function` marked `kind`, if any.
std::optional<unsigned> findEntryArg(FunctionOpInterface function,
                                     EntryArg kind);
/// Whether any argument of `function` carries a mark: an entry point.
bool hasEntryArgs(FunctionOpInterface function);
/// The mark of argument `index` of `function`, if it has one.
std::optional<EntryArg> getEntryArg(FunctionOpInterface function,
                                    unsigned index);
/// Removes every tfm.entry_arg mark of `function`.
void clearEntryArgs(FunctionOpInterface function);

} // namespace mlir::tfm

#endif // TFMC_DIALECT_TFMCONTRACTS_H
