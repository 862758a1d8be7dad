//===- ActivationConfig.h - GELU activations as config.json names them ----===//
//
// transformers' names of the GELU forms tfmc builds: `gelu` is the exact
// (erf) form, `gelu_new`, `gelu_pytorch_tanh` and `gelu_fast` the tanh
// approximation. Families whose MLP is a GELU read their activation key
// here, so that each name means one thing in every family.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_MODELS_ACTIVATIONCONFIG_H
#define TFMC_MODELS_ACTIVATIONCONFIG_H

#include "compiler/spec/ConfigSource.h"
#include "compiler/spec/DecoderConfig.h"

namespace tfmc {

/// Reads config.json's `key` (`fallback` when absent) into `mlp`:
/// GeluErf or GeluTanh; any other name is an error naming the key and the
/// supported names.
llvm::Error readHfGelu(const ConfigSource &config, llvm::StringRef key,
                       llvm::StringRef fallback, MlpKind &mlp);

/// As readHfGelu, also taking `relu` (Relu) where `relu` is set (OPT).
llvm::Error readHfActivation(const ConfigSource &config, llvm::StringRef key,
                             llvm::StringRef fallback, MlpKind &mlp, bool relu);

} // namespace tfmc

#endif // TFMC_MODELS_ACTIVATIONCONFIG_H
