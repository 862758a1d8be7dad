//===- KernelConfig.h - The kernel configuration of an op ------*- C++ -*-===//
//
// tfm-cpu-select-kernel-config chooses how each projection and attention is
// computed once (#tfm_cpu.projection, #tfm_cpu.attention) and sets it as
// the `tfm_cpu.config` attribute of the op; the passes that apply a choice
// read it from there, or, after tiling, from the loops of the kernel that
// carry it. Read and written here only, so no pass spells the name.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_CPU_IR_KERNELCONFIG_H
#define TFMC_PASSES_CODEGEN_CPU_IR_KERNELCONFIG_H

#include "passes/Codegen/CPU/IR/TfmCpuOps.h"

namespace mlir::tfm::cpu {

/// The configuration `op` carries (tfm_cpu.config), or null.
Attribute getKernelConfig(Operation *op);
ProjectionConfigAttr getProjectionConfig(Operation *op);
AttentionConfigAttr getAttentionConfig(Operation *op);
/// Sets `config` as `op`'s configuration.
void setKernelConfig(Operation *op, Attribute config);

/// The projection configuration of the innermost kernel loop (or op) that
/// holds `op`, `op` itself included, or null when none does.
ProjectionConfigAttr getEnclosingProjectionConfig(Operation *op);
/// The same for attention.
AttentionConfigAttr getEnclosingAttentionConfig(Operation *op);

} // namespace mlir::tfm::cpu

#endif // TFMC_PASSES_CODEGEN_CPU_IR_KERNELCONFIG_H
