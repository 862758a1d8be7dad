//===- KernelConfig.h - The tfm_gpu dialect, its kernel configs -*- C++ -*-===//
//
#ifndef TFMC_PASSES_CODEGEN_GPU_KERNELCONFIG_H
#define TFMC_PASSES_CODEGEN_GPU_KERNELCONFIG_H

#include "compiler/weights/PanelLayout.h"
#include "dialect/TfmOps.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "passes/Codegen/GPU/KernelConfigDialect.h.inc"
#include "passes/Codegen/GPU/KernelConfigEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/Codegen/GPU/KernelConfigAttrs.h.inc"

#define GET_OP_CLASSES
#include "passes/Codegen/GPU/TfmGpuOps.h.inc"

namespace mlir::tfm {

/// The kernel config tfm-gpu-select-kernel-config gave `op`, or null.
inline GpuKernelConfigAttr getKernelConfig(Operation *op) {
  return op->getAttrOfType<GpuKernelConfigAttr>(TfmGpuDialect::kKernelAttrName);
}

inline void setKernelConfig(Operation *op, GpuKernelConfigAttr config) {
  op->setAttr(TfmGpuDialect::kKernelAttrName, config);
}

/// Threads of a warp on every NVIDIA GPU.
constexpr int64_t kWarpSize = 32;

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_GPU_KERNELCONFIG_H
