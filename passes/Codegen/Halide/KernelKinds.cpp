//===- KernelKinds.cpp - Which code generator compiles each kernel --------===//
#include "passes/Codegen/Halide/KernelKinds.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir::tfm::halide;
using tfmc::halide::KernelKind;

const std::vector<KernelKind> &mlir::tfm::halide::allKernelKinds() {
  static const std::vector<KernelKind> kinds = {
      KernelKind::Projection, KernelKind::Attention,   KernelKind::Norm,
      KernelKind::Positional, KernelKind::Elementwise, KernelKind::MoeRouting,
      KernelKind::LmHead,     KernelKind::MoeExperts};
  return kinds;
}

std::optional<KernelKind>
mlir::tfm::halide::parseKernelKind(llvm::StringRef name) {
  for (KernelKind kind : allKernelKinds())
    if (name == tfmc::halide::kernelKindName(kind))
      return kind;
  return std::nullopt;
}

std::string mlir::tfm::halide::kernelKindNames() {
  std::string names;
  for (KernelKind kind : allKernelKinds())
    names += std::string(names.empty() ? "" : ", ") +
             tfmc::halide::kernelKindName(kind);
  return names;
}

std::vector<std::string> KernelBackends::halideKinds() const {
  std::vector<std::string> kinds;
  for (auto [kind, generator] : byKind)
    if (generator == CodeGenerator::Halide)
      kinds.push_back(tfmc::halide::kernelKindName(kind));
  return kinds;
}

static std::optional<CodeGenerator> parseCodeGenerator(llvm::StringRef name) {
  if (name == "llvm")
    return CodeGenerator::Llvm;
  if (name == "halide")
    return CodeGenerator::Halide;
  return std::nullopt;
}

std::optional<KernelBackends> mlir::tfm::halide::parseKernelBackends(
    llvm::StringRef backend, llvm::StringRef perKind, std::string &error) {
  KernelBackends backends;
  CodeGenerator whole = CodeGenerator::Llvm;
  if (!backend.empty()) {
    std::optional<CodeGenerator> parsed = parseCodeGenerator(backend);
    if (!parsed) {
      error = "unknown --backend '" + backend.str() + "' (llvm or halide)";
      return std::nullopt;
    }
    whole = *parsed;
  }
  for (KernelKind kind : allKernelKinds())
    backends.byKind[kind] = whole;
  llvm::SmallVector<llvm::StringRef> entries;
  perKind.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    auto [kindName, generatorName] = entry.trim().split(':');
    std::optional<KernelKind> kind = parseKernelKind(kindName);
    if (!kind) {
      error = "unknown kernel kind '" + kindName.str() +
              "' in --kernel-backend (kinds: " + kernelKindNames() + ")";
      return std::nullopt;
    }
    std::optional<CodeGenerator> generator = parseCodeGenerator(generatorName);
    if (!generator) {
      error = "--kernel-backend entry '" + entry.trim().str() +
              "' needs a backend after its kind: KIND:llvm or KIND:halide";
      return std::nullopt;
    }
    backends.byKind[*kind] = *generator;
  }
  return backends;
}
