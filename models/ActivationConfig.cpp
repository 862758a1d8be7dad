//===- ActivationConfig.cpp - GELU activations as config.json names them --===//
#include "models/ActivationConfig.h"

using namespace tfmc;

llvm::Error tfmc::readHfGelu(const ConfigSource &config, llvm::StringRef key,
                             llvm::StringRef fallback, MlpKind &mlp) {
  return readHfActivation(config, key, fallback, mlp, /*relu=*/false);
}

llvm::Error tfmc::readHfActivation(const ConfigSource &config,
                                   llvm::StringRef key,
                                   llvm::StringRef fallback, MlpKind &mlp,
                                   bool relu) {
  auto activation = config.string(key, fallback.str());
  if (!activation)
    return activation.takeError();
  if (relu && *activation == "relu") {
    mlp = MlpKind::Relu;
    return llvm::Error::success();
  }
  if (*activation == "gelu") {
    mlp = MlpKind::GeluErf;
    return llvm::Error::success();
  }
  if (*activation == "gelu_new" || *activation == "gelu_pytorch_tanh" ||
      *activation == "gelu_fast") {
    mlp = MlpKind::GeluTanh;
    return llvm::Error::success();
  }
  return llvm::createStringError(
      "unsupported " + key + " '" + *activation + "' in " + config.describe() +
      " (supported: " + (relu ? "relu, " : "") +
      "gelu, gelu_new, gelu_pytorch_tanh, gelu_fast)");
}
