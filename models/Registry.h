//===- Registry.h - Every model family in models/ ---------------*- C++ -*-===//
#ifndef TFMC_MODELS_REGISTRY_H
#define TFMC_MODELS_REGISTRY_H

#include "models/Family.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace tfmc {

/// Every family, sorted by name.
llvm::ArrayRef<const ModelFamily *> modelFamilies();

/// The first family (by name) for which `claims` holds, or null.
const ModelFamily *
findFamily(llvm::function_ref<bool(const ModelFamily &)> claims);

/// The family named `name`, or null.
const ModelFamily *findFamily(llvm::StringRef name);

/// "gpt2, llama": the non-empty `key`s of the families, sorted.
std::string
supportedNames(llvm::function_ref<llvm::StringRef(const ModelFamily &)> key);

} // namespace tfmc

#endif // TFMC_MODELS_REGISTRY_H
