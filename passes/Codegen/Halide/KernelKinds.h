//===- KernelKinds.h - Which code generator compiles each kernel -*- C++
//-*-===//
//
// `--backend=llvm|halide` chooses the code generator of every kernel,
// `--kernel-backend=KIND:BACKEND,...` of some kinds: the kinds are the
// Halide generator's (projection, attention, norm, positional, elementwise,
// moe-routing, lm-head, moe-experts), and whatever no option names stays
// with LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_HALIDE_KERNELKINDS_H
#define TFMC_PASSES_CODEGEN_HALIDE_KERNELKINDS_H

#include "compiler/backends/halide/KernelDescription.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfm::halide {

/// Every kind, in tfmc::halide::KernelKind's order.
const std::vector<tfmc::halide::KernelKind> &allKernelKinds();
/// "projection" -> KernelKind::Projection; nullopt for an unknown name.
std::optional<tfmc::halide::KernelKind> parseKernelKind(llvm::StringRef name);
/// The kind names, comma-separated (for messages).
std::string kernelKindNames();

enum class CodeGenerator { Llvm, Halide };

/// Which code generator compiles each kind.
struct KernelBackends {
  std::map<tfmc::halide::KernelKind, CodeGenerator> byKind;

  /// The kinds that Halide compiles, by name (tfm-halide-outline-kernels'
  /// `kinds`).
  std::vector<std::string> halideKinds() const;
};

/// From `--backend` ("" or "llvm" or "halide") and `--kernel-backend`
/// ("KIND:BACKEND,..."; a later entry overrides the backend for its kind).
/// Nullopt with `error` set for an unknown backend or kind, or a malformed
/// entry.
std::optional<KernelBackends> parseKernelBackends(llvm::StringRef backend,
                                                  llvm::StringRef perKind,
                                                  std::string &error);

} // namespace mlir::tfm::halide

#endif // TFMC_PASSES_CODEGEN_HALIDE_KERNELKINDS_H
