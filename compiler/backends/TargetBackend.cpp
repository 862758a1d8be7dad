//===- TargetBackend.cpp - The backends --target can select ---------------===//
#include "compiler/backends/TargetBackend.h"

#include "compiler/backends/cuda/CudaBackend.h"
#include "compiler/backends/llvm-cpu/CpuBackend.h"

using namespace tfmc;

std::unique_ptr<TargetBackend> tfmc::createTargetBackend(llvm::StringRef name) {
  if (name == "cpu")
    return std::make_unique<CpuBackend>();
  if (name == "cuda")
    return std::make_unique<CudaBackend>();
  return nullptr;
}

std::vector<std::string> tfmc::targetBackendNames() { return {"cpu", "cuda"}; }
