//===- HalideTarget.h - #tfm.target as Halide's target ----------*- C++ -*-===//
#ifndef TFMC_PASSES_CODEGEN_HALIDE_HALIDETARGET_H
#define TFMC_PASSES_CODEGEN_HALIDE_HALIDETARGET_H

#include "compiler/backends/halide/KernelDescription.h"
#include "dialect/TfmContracts.h"

#include <optional>
#include <string>

namespace mlir::tfm::halide {

/// The machine `target` describes, in Halide's terms: a CPU's LLVM
/// features ("+avx2,+fma,...") as Halide's x86 feature names, each
/// AVX-512 level only when every extension it implies is there; a CUDA
/// GPU's arch as a compute capability Halide 14 knows (its highest, 86,
/// for newer archs). Nullopt with `error` set without a target.
std::optional<tfmc::halide::TargetDescription>
describeHalideTarget(TargetAttr target, std::string &error);

} // namespace mlir::tfm::halide

#endif // TFMC_PASSES_CODEGEN_HALIDE_HALIDETARGET_H
