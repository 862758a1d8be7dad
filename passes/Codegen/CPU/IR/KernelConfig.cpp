//===- KernelConfig.cpp - The kernel configuration of an op or loop -------===//
#include "passes/Codegen/CPU/IR/KernelConfig.h"

using namespace mlir;
using namespace mlir::tfm::cpu;

Attribute mlir::tfm::cpu::getKernelConfig(Operation *op) {
  return op->getAttr(TfmCpuDialect::kConfigAttrName);
}

ProjectionConfigAttr mlir::tfm::cpu::getProjectionConfig(Operation *op) {
  return dyn_cast_if_present<ProjectionConfigAttr>(getKernelConfig(op));
}

AttentionConfigAttr mlir::tfm::cpu::getAttentionConfig(Operation *op) {
  return dyn_cast_if_present<AttentionConfigAttr>(getKernelConfig(op));
}

void mlir::tfm::cpu::setKernelConfig(Operation *op, Attribute config) {
  op->setAttr(TfmCpuDialect::kConfigAttrName, config);
}

/// The innermost `Config` that `op` or an op holding it carries.
template <typename Config> static Config enclosingConfig(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto config = dyn_cast_if_present<Config>(getKernelConfig(op)))
      return config;
  return {};
}

ProjectionConfigAttr
mlir::tfm::cpu::getEnclosingProjectionConfig(Operation *op) {
  return enclosingConfig<ProjectionConfigAttr>(op);
}

AttentionConfigAttr mlir::tfm::cpu::getEnclosingAttentionConfig(Operation *op) {
  return enclosingConfig<AttentionConfigAttr>(op);
}
