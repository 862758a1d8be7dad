//===- TargetBackend.cpp - The backends --target can select ---------------===//
#include "compiler/backends/TargetBackend.h"

#include "compiler/backends/llvm-cpu/CpuBackend.h"

using namespace tfmc;

std::unique_ptr<TargetBackend> tfmc::createTargetBackend(llvm::StringRef name) {
  if (name == "cpu")
    return std::make_unique<CpuBackend>();
  return nullptr;
}

std::vector<std::string> tfmc::targetBackendNames() { return {"cpu"}; }
